// OpenSpiel's tarok as a minimal pybind11 module, for the side-by-side
// benchmark with tarock_engine from Python (openspiel_python_side_by_side.sh).
// The calls a Python loop makes, bound as pyspiel binds them (pybind11, the
// legal actions as a list of ints): new_initial_state, is_terminal,
// is_chance_node, chance_outcome (the deal), legal_actions, apply_action,
// clone, returns. Not part of the build: the script compiles it.
#include <memory>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "open_spiel/spiel.h"

namespace py = pybind11;

struct OsGame {
  std::shared_ptr<const open_spiel::Game> game;
};

PYBIND11_MODULE(openspiel_tarok, m) {
  py::class_<open_spiel::State>(m, "State")
      .def("is_terminal", &open_spiel::State::IsTerminal)
      .def("is_chance_node", &open_spiel::State::IsChanceNode)
      .def("chance_outcome", [](const open_spiel::State& s) { return s.ChanceOutcomes()[0].first; })
      .def("legal_actions", [](const open_spiel::State& s) { return s.LegalActions(); })
      .def("apply_action", &open_spiel::State::ApplyAction)
      .def("clone", &open_spiel::State::Clone)
      .def("returns", &open_spiel::State::Returns);
  py::class_<OsGame>(m, "Game")
      .def(py::init([](int players, int seed) {
        return OsGame{open_spiel::LoadGame(
            "tarok", {{"players", open_spiel::GameParameter(players)},
                      {"rng_seed", open_spiel::GameParameter(seed)}})};
      }))
      .def("new_initial_state", [](const OsGame& g) { return g.game->NewInitialState(); });
}
