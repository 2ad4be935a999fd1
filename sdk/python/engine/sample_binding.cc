// Sampling worlds from a seat's decision: the C++ SDK's Determinizer
// (sdk/cpp/include/tarock/sdk/determinize.h) behind tarock_engine.Sampler.
//
// A Sampler reads the DecisionRequest (or Observation) exactly as the referee
// sent it (serialized tarock.v1 protobuf, so nothing is lost between the Python
// SDK and the C++ one) and returns States consistent with everything that seat
// has seen. It is immutable after construction: sample() may run from several
// threads at once; samples(n) releases the GIL while it samples.

#include <optional>

#include <pybind11/stl.h>

#include "absl/strings/str_cat.h"
#include "referee/engine/random.h"
#include "sdk/python/engine/bindings.h"
#include "tarock/sdk/determinize.h"

namespace py = pybind11;

namespace tarock::python {
namespace {

struct PySampler {
  std::shared_ptr<const PyGame> game;  // the Determinizer points into it
  std::optional<sdk::Determinizer> det;
  int max_attempts = sdk::Determinizer::kDefaultMaxAttempts;
};

std::shared_ptr<PySampler> MakeSampler(std::shared_ptr<const PyGame> game,
                                       const std::string& bytes, bool is_observation,
                                       std::optional<bool> forced_klop, int max_attempts) {
  if (max_attempts <= 0) throw py::value_error("max_attempts must be positive");
  auto s = std::make_shared<PySampler>();
  s->game = std::move(game);
  s->max_attempts = max_attempts;
  absl::StatusOr<sdk::Determinizer> det;
  if (is_observation) {
    v1::Observation obs;
    if (!obs.ParseFromString(bytes))
      throw py::value_error("not a serialized tarock.v1.Observation");
    det = sdk::Determinizer::Create(*s->game->game, obs, forced_klop);
  } else {
    v1::DecisionRequest request;
    if (!request.ParseFromString(bytes))
      throw py::value_error("not a serialized tarock.v1.DecisionRequest");
    if (request.observation().variant() != s->game->game->info().name)
      throw py::value_error(absl::StrCat("the request is of variant '",
                                         request.observation().variant(), "', the game '",
                                         s->game->game->info().name, "'"));
    det = sdk::Determinizer::Create(*s->game->game, request, forced_klop);
  }
  ThrowIfError(det.status());
  s->det.emplace(std::move(*det));
  return s;
}

}  // namespace

void RegisterSample(py::module_& m) {
  py::class_<PySampler, std::shared_ptr<PySampler>>(m, "Sampler",
      "Samples complete hands consistent with one seat's decision (the C++ Determinizer). "
      "Immutable; usable from several threads.")
      .def(py::init([](std::shared_ptr<PyGame> game, py::bytes request,
                       std::optional<bool> forced_klop, int max_attempts) {
             return MakeSampler(game, std::string(request), false, forced_klop, max_attempts);
           }),
           py::arg("game"), py::arg("request"), py::arg("forced_klop") = py::none(),
           py::arg("max_attempts") = static_cast<int>(sdk::Determinizer::kDefaultMaxAttempts),
           "From a serialized tarock.v1.DecisionRequest (Situation.request.SerializeToString()). "
           "forced_klop is the HandStart's flag (inferred when None). Raises "
           "NotImplementedError where the determinizer does not work (the Austrian variants and "
           "westfest before the announcements) and ValueError for an observation that "
           "contradicts itself.")
      .def_static("from_observation",
           [](std::shared_ptr<PyGame> game, py::bytes observation,
              std::optional<bool> forced_klop, int max_attempts) {
             return MakeSampler(game, std::string(observation), true, forced_klop, max_attempts);
           },
           py::arg("game"), py::arg("observation"), py::arg("forced_klop") = py::none(),
           py::arg("max_attempts") = static_cast<int>(sdk::Determinizer::kDefaultMaxAttempts),
           "From a serialized tarock.v1.Observation (its legal actions are not known then).")
      .def_property_readonly("seat", [](const PySampler& s) { return s.det->seat(); })
      .def_property_readonly("unknown_cards", [](const PySampler& s) {
        std::vector<std::string> out;
        for (Card c : s.det->UnknownCards()) out.push_back(CardName(c));
        return out;
      }, "The cards whose place the seat does not know (the sampler deals them).")
      .def("excluded", [](const PySampler& s, int seat) {
        if (seat < 0 || seat >= s.game->game->num_seats())
          throw py::value_error(absl::StrCat("seat ", seat, " is not a seat"));
        std::vector<std::string> out;
        for (Card c : s.det->Excluded(seat)) out.push_back(CardName(c));
        return out;
      }, py::arg("seat"), "Cards `seat` cannot hold now, as the history shows.")
      .def("sample", [](const PySampler& s, uint64_t seed) {
        Rng rng(seed);
        absl::StatusOr<std::unique_ptr<State>> state = s.det->Sample(rng, s.max_attempts);
        ThrowIfError(state.status());
        return WrapState(s.game, std::move(*state));
      }, py::arg("seed"),
      "One complete hand at the observed decision, consistent with what the seat saw. "
      "ValueError when no consistent deal was found in max_attempts tries.")
      .def("samples", [](const PySampler& s, int n, uint64_t seed) {
        if (n < 0) throw py::value_error("n must be >= 0");
        std::vector<std::unique_ptr<State>> states;
        absl::Status error;
        {
          py::gil_scoped_release release;
          Rng rng(seed);
          for (int i = 0; i < n; ++i) {
            absl::StatusOr<std::unique_ptr<State>> state = s.det->Sample(rng, s.max_attempts);
            if (!state.ok()) {
              error = state.status();
              break;
            }
            states.push_back(std::move(*state));
          }
        }
        ThrowIfError(error);
        py::list out;
        for (auto& st : states) out.append(WrapState(s.game, std::move(st)));
        return out;
      }, py::arg("n"), py::arg("seed"),
      "n independent samples (the GIL is released while sampling).");
}

}  // namespace tarock::python
