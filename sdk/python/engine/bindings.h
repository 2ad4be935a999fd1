// The C++ side of the Python module tarock_engine._core: the objects that the
// binding files (game_binding.cc, sample_binding.cc, learn_binding.cc) share,
// and the functions that register each file's part of the module.
//
// PyGame is a variant with its options and its action space; PyState is one
// hand of it. A PyState holds its PyGame by shared_ptr, so no State outlives
// its Game, whatever Python does with the objects.
//
// Thread-safety: every call holds the GIL except the few that step many
// actions in C++ (they say so); while such a call runs, its PyState is marked
// busy and any other call on that PyState from another thread raises
// RuntimeError instead of racing (StateGuard). A PyGame is immutable.

#ifndef TAROCK_SDK_PYTHON_ENGINE_BINDINGS_H_
#define TAROCK_SDK_PYTHON_ENGINE_BINDINGS_H_

#include <atomic>
#include <memory>
#include <stdexcept>
#include <string>

#include <pybind11/pybind11.h>

#include "absl/status/status.h"
#include "referee/engine/game.h"
#include "sdk/python/engine/action_space.h"

namespace tarock::python {

struct PyGame {
  std::unique_ptr<const Game> game;
  ActionSpace space;
  PyGame(std::unique_ptr<const Game> g) : game(std::move(g)), space(*game) {}
};

struct PyState {
  std::shared_ptr<const PyGame> game;
  std::unique_ptr<State> state;
  // Set while a call that released the GIL works on this state.
  std::atomic<bool> busy{false};
};

// Marks a PyState busy for its lifetime; throws RuntimeError when another
// thread already has it (only possible while that thread released the GIL).
class StateGuard {
 public:
  explicit StateGuard(PyState& s) : s_(s) {
    if (s_.busy.exchange(true))
      throw std::runtime_error("this State is in use by another thread (a State is not shared "
                               "between threads; clone() it for each thread)");
  }
  ~StateGuard() { s_.busy.store(false); }
  StateGuard(const StateGuard&) = delete;
  StateGuard& operator=(const StateGuard&) = delete;

 private:
  PyState& s_;
};

// Raises RuntimeError when another thread has the state (StateGuard); for calls
// that keep the GIL throughout.
void CheckNotBusy(const PyState& s);

// A new PyState of `game` holding `state`.
std::shared_ptr<PyState> WrapState(std::shared_ptr<const PyGame> game, std::unique_ptr<State> state);

// Raises the status as a Python exception (the engine's message): ValueError
// for InvalidArgument, NotFound and OutOfRange; NotImplementedError for
// Unimplemented; RuntimeError otherwise. No-op
// when ok.
void ThrowIfError(const absl::Status& status);

// The parts of the module, one per binding file (module.cc calls them).
void RegisterGame(pybind11::module_& m);
void RegisterSample(pybind11::module_& m);
void RegisterLearn(pybind11::module_& m);
void RegisterBots(pybind11::module_& m);  // bots_binding.cc: the heuristic bot

}  // namespace tarock::python

#endif  // TAROCK_SDK_PYTHON_ENGINE_BINDINGS_H_
