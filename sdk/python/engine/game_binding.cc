// Game and State: the engine's variants as Python objects.
#include <pybind11/stl.h>

#include "referee/engine/registry.h"
#include "sdk/python/engine/bindings.h"

namespace py = pybind11;

namespace tarock::python {

void ThrowIfError(const absl::Status& status) {
  if (status.ok()) return;
  const std::string msg(status.message());
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kOutOfRange:
      throw py::value_error(msg);
    default:
      throw std::runtime_error(msg);
  }
}

void RegisterGame(py::module_& m) {
  py::class_<PyGame, std::shared_ptr<PyGame>>(m, "Game")
      .def(py::init([](const std::string& variant, const Options& options) {
             auto game = Registry::Global().Create(variant, options);
             ThrowIfError(game.status());
             return std::make_shared<PyGame>(std::move(*game));
           }),
           py::arg("variant"), py::arg("options") = Options{})
      .def_property_readonly("num_actions", [](const PyGame& g) { return g.space.size(); });
}

}  // namespace tarock::python
