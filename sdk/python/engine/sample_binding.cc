// Sampling worlds from a seat's observation (the C++ Determinizer).
#include "sdk/python/engine/bindings.h"

namespace tarock::python {

void RegisterSample(pybind11::module_& m) {}

}  // namespace tarock::python
