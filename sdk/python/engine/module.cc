// tarock_engine._core: the referee's engine as a Python extension (bindings.h).
#include <pybind11/pybind11.h>

#include "sdk/python/engine/bindings.h"

PYBIND11_MODULE(_core, m) {
  m.doc() = "The Tarock Arena engine: the referee's own rules, for bots that search and learn.";
  tarock::python::RegisterGame(m);
  tarock::python::RegisterSample(m);
  tarock::python::RegisterLearn(m);
  tarock::python::RegisterBots(m);
}
