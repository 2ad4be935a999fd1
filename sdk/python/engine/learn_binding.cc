// Encodings, VecEnv and records for learning (issue 46): filled in by the
// tarock_engine learning work; registers nothing yet.
#include "sdk/python/engine/bindings.h"

namespace tarock::python {

void RegisterLearn(pybind11::module_& m) {}

}  // namespace tarock::python
