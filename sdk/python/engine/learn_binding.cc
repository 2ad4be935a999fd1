// Learning: the encodings of one seat's observation (Encoder, encoding.h) and
// VecEnv (vec_env.h) as Python objects, numpy in and out (docs/python.md,
// "Encodings" and "VecEnv"; issue 46).
//
// Every array that comes from Python is checked (dtype, shape) before the C++
// sees it; a failing call raises one exception and changes nothing. VecEnv's
// step and reset run without the GIL; meanwhile the VecEnv is marked busy and
// a call from another thread raises RuntimeError.

#include <atomic>
#include <cstring>
#include <memory>
#include <optional>

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "absl/strings/str_cat.h"
#include "sdk/python/engine/bindings.h"
#include "sdk/python/engine/encoding.h"
#include "sdk/python/engine/vec_env.h"
#include "tarock/v1/tarock.pb.h"

namespace py = pybind11;

namespace tarock::python {
namespace {

struct PyEncoder {
  std::shared_ptr<const PyGame> game;
  Encoder enc;
  explicit PyEncoder(std::shared_ptr<const PyGame> g) : game(std::move(g)), enc(*game->game) {}
};

void CheckSeat(const PyState& s, int seat) {
  CheckNotBusy(s);
  const int n = s.game->game->num_seats();
  if (seat < 0 || seat >= n)
    throw py::value_error(absl::StrCat("seat ", seat, " is outside [0, ", n, ")"));
}

void CheckSameGame(const PyEncoder& e, const PyState& s) {
  if (s.game.get() != e.game.get() && (s.game->game->info().name != e.game->game->info().name ||
                                       s.game->game->options() != e.game->game->options()))
    throw py::value_error("this State is of another game than the Encoder's");
}

template <typename T>
py::array_t<T> Zeros(py::ssize_t n) {
  py::array_t<T> a(n);
  std::memset(a.mutable_data(), 0, sizeof(T) * n);
  return a;
}

// A read-only numpy view of `n` items at `data`, kept alive by `owner`.
template <typename T>
py::array View(const T* data, std::vector<py::ssize_t> shape, py::handle owner) {
  py::array a(py::dtype::of<T>(), shape, data, owner);
  py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return a;
}

// The engine's Observation of what a referee sent (the inverse of
// ObservationToProto); `legal` from the request. Card names that do not parse
// are an error: the encodings never guess.
Observation ObservationFromProto(const v1::Observation& p,
                                 const google::protobuf::RepeatedPtrField<std::string>* legal) {
  auto card = [](const std::string& name) {
    absl::StatusOr<Card> c = ParseCard(name);
    if (!c.ok()) throw py::value_error(absl::StrCat("observation: ", c.status().message()));
    return *c;
  };
  Observation o;
  o.variant = p.variant();
  o.seat = p.seat();
  o.num_seats = p.num_seats();
  o.dealer = p.dealer();
  o.phase = p.phase();
  o.to_act = p.to_act();
  for (const std::string& c : p.hand()) o.hand.Add(card(c));
  for (const v1::Event& e : p.history()) o.history.emplace_back(e.seat(), e.action());
  for (const std::string& t : p.talon()) o.talon.push_back(t);
  for (const v1::ShownCards& s : p.shown()) {
    CardSet set;
    for (const std::string& c : s.cards()) set.Add(card(c));
    o.shown.push_back(set);
  }
  o.declarer = p.declarer();
  o.contract = p.contract();
  o.called_king = p.called_king();
  o.partner = p.partner();
  o.trick_leader = p.trick_leader();
  for (const std::string& c : p.trick()) o.trick.push_back(card(c));
  for (int t : p.tricks_won()) o.tricks_won.push_back(t);
  for (int r : p.radli()) o.radli.push_back(r);
  if (legal) o.legal.assign(legal->begin(), legal->end());
  return o;
}

struct PyVecEnv {
  std::unique_ptr<VecEnv> env;
  std::atomic<bool> busy{false};
};

class EnvGuard {
 public:
  explicit EnvGuard(PyVecEnv& e) : e_(e) {
    if (e_.busy.exchange(true))
      throw std::runtime_error("this VecEnv is in use by another thread");
  }
  ~EnvGuard() { e_.busy.store(false); }

 private:
  PyVecEnv& e_;
};

}  // namespace

void RegisterLearn(py::module_& m) {
  m.attr("ENCODING_VERSION") = kEncodingVersion;
  m.attr("PHASES") = PhaseNames();

  py::class_<PyEncoder, std::shared_ptr<PyEncoder>>(m, "Encoder",
      "The encodings of one seat's observation for a game (docs/python.md, Encodings): "
      "computed only from what that seat sees, except privileged(). Immutable.")
      .def(py::init([](std::shared_ptr<PyGame> g) { return std::make_shared<PyEncoder>(g); }),
           py::arg("game"))
      .def_property_readonly("version", [](const PyEncoder&) { return kEncodingVersion; })
      .def_property_readonly("observation_size",
                             [](const PyEncoder& e) { return e.enc.observation_size(); })
      .def_property_readonly("info_state_size",
                             [](const PyEncoder& e) { return e.enc.info_state_size(); })
      .def_property_readonly("privileged_size",
                             [](const PyEncoder& e) { return e.enc.privileged_size(); })
      .def_property_readonly("max_history", [](const PyEncoder& e) { return e.enc.max_history(); })
      .def_property_readonly("num_actions", [](const PyEncoder& e) { return e.enc.space().size(); })
      .def_property_readonly("fields", [](const PyEncoder& e) {
        py::list out;
        for (const Field& f : e.enc.fields())
          out.append(py::make_tuple(f.name, f.offset, f.size, f.doc));
        return out;
      }, "The observation tensor's fields: (name, offset, size, meaning), in order.")
      .def("observation", [](const PyEncoder& e, const PyState& s, int seat) {
        CheckSameGame(e, s);
        CheckSeat(s, seat);
        py::array_t<float> out(e.enc.observation_size());
        e.enc.EncodeObservation(s.state->Observe(seat), out.mutable_data());
        return out;
      }, py::arg("state"), py::arg("seat"), "The observation tensor of `seat` (float32).")
      .def("info_state", [](const PyEncoder& e, const PyState& s, int seat) {
        CheckSameGame(e, s);
        CheckSeat(s, seat);
        py::array_t<float> out(e.enc.info_state_size());
        ThrowIfError(e.enc.EncodeInfoState(s.state->Observe(seat), out.mutable_data()));
        return out;
      }, py::arg("state"), py::arg("seat"),
         "The perfect-recall information-state tensor of `seat` (float32).")
      .def("history", [](const PyEncoder& e, const PyState& s, int seat) {
        CheckSameGame(e, s);
        CheckSeat(s, seat);
        py::array_t<int16_t> out({e.enc.max_history(), 2});
        ThrowIfError(e.enc.EncodeHistory(s.state->Observe(seat), out.mutable_data()));
        return out;
      }, py::arg("state"), py::arg("seat"),
         "The history as `seat` saw it: int16 rows (seat, action index; num_actions for a hidden "
         "action), -1 padded.")
      .def("mask", [](const PyEncoder& e, const PyState& s, int seat) {
        CheckSameGame(e, s);
        CheckSeat(s, seat);
        py::array_t<uint8_t> out(e.enc.space().size());
        e.enc.EncodeMask(s.state->Observe(seat), out.mutable_data());
        return out.attr("astype")("bool");
      }, py::arg("state"), py::arg("seat"),
         "The legal-action mask of `seat` (bool; all False unless `seat` is to act).")
      .def("text", [](const PyEncoder& e, const PyState& s, int seat) {
        CheckSameGame(e, s);
        CheckSeat(s, seat);
        return e.enc.Text(s.state->Observe(seat));
      }, py::arg("state"), py::arg("seat"), "A text rendering of what `seat` sees.")
      .def("encode_request", [](const PyEncoder& e, py::bytes request) {
        v1::DecisionRequest r;
        if (!r.ParseFromString(std::string(request)))
          throw py::value_error("not a serialized tarock.v1.DecisionRequest");
        const Observation o = ObservationFromProto(r.observation(), &r.legal_actions());
        if (o.variant != e.game->game->info().name)
          throw py::value_error(absl::StrCat("the request is of ", o.variant, ", the Encoder of ",
                                             e.game->game->info().name));
        if (o.seat < 0 || o.seat >= e.enc.num_seats() || o.num_seats != e.enc.num_seats())
          throw py::value_error("the request's seat is outside the game's seats");
        py::array_t<float> obs(e.enc.observation_size());
        py::array_t<uint8_t> mask(e.enc.space().size());
        e.enc.EncodeObservation(o, obs.mutable_data());
        e.enc.EncodeMask(o, mask.mutable_data());
        return py::make_tuple(obs, mask.attr("astype")("bool"), PhaseId(o.phase));
      }, py::arg("request"),
         "From a serialized tarock.v1.DecisionRequest (what a bot receives; the SDK's "
         "Situation.request.SerializeToString()): (observation tensor, mask, phase id), the "
         "same as observation()/mask()/phase() give for that seat's State.")
      .def("phase", [](const PyEncoder& e, const PyState& s) {
        CheckNotBusy(s);
        return PhaseId(s.state->PhaseName());
      }, py::arg("state"), "The phase id (an index of tarock_engine.PHASES).")
      .def("privileged", [](const PyEncoder& e, const PyState& s, int seat) {
        CheckSameGame(e, s);
        CheckSeat(s, seat);
        py::array_t<float> out(e.enc.privileged_size());
        e.enc.EncodePrivileged(*s.state, seat, out.mutable_data());
        return out;
      }, py::arg("state"), py::arg("seat"),
         "PRIVILEGED (every hand and the talon; for training critics, never for playing): the "
         "observation tensor of `seat`, then every seat's hand, then the dealt talon.");

  py::class_<PyVecEnv, std::shared_ptr<PyVecEnv>>(m, "VecEnv",
      "n tables of one variant stepped together in C++ (docs/python.md, VecEnv). Outputs are "
      "read-only numpy views that the next step() or reset() overwrites: copy what you keep.")
      .def(py::init([](const std::string& variant, int n, uint64_t seed, const Options& options,
                       std::optional<std::vector<std::string>> seat_bots, bool duplicate,
                       int hands_per_match, int first_dealer, bool observation_tensor,
                       bool info_state, const std::string& salt) {
             VecEnvOptions o;
             o.variant = variant;
             o.num_envs = n;
             o.seed = seed;
             o.salt = salt;
             o.options = options;
             if (seat_bots) {
               o.seat_bots = *seat_bots;
               for (std::string& b : o.seat_bots)
                 if (b == "agent") b.clear();
             }
             o.duplicate = duplicate;
             o.hands_per_match = hands_per_match;
             o.first_dealer = first_dealer;
             o.observation_tensor = observation_tensor;
             o.info_state = info_state;
             absl::StatusOr<std::unique_ptr<VecEnv>> env;
             {
               py::gil_scoped_release release;
               env = VecEnv::Create(o);
             }
             ThrowIfError(env.status());
             auto out = std::make_shared<PyVecEnv>();
             out->env = std::move(*env);
             return out;
           }),
           py::arg("variant"), py::arg("n"), py::arg("seed") = 0, py::arg("options") = Options{},
           py::arg("seat_bots") = py::none(), py::arg("duplicate") = false,
           py::arg("hands_per_match") = 0, py::arg("first_dealer") = 0,
           py::arg("observation_tensor") = true, py::arg("info_state") = false,
           py::arg("salt") = "")
      .def_property_readonly("num_envs", [](const PyVecEnv& e) { return e.env->num_envs(); })
      .def_property_readonly("num_seats", [](const PyVecEnv& e) { return e.env->num_seats(); })
      .def_property_readonly("num_actions", [](const PyVecEnv& e) { return e.env->space().size(); })
      .def_property_readonly("observation_size",
                             [](const PyVecEnv& e) { return e.env->encoder().observation_size(); })
      .def_property_readonly("info_state_size",
                             [](const PyVecEnv& e) { return e.env->encoder().info_state_size(); })
      .def_property_readonly("action_names", [](const PyVecEnv& e) { return e.env->space().Names(); })
      .def_property_readonly("seat_bots", [](const PyVecEnv& e) { return e.env->options().seat_bots; })
      .def_property_readonly("agent_decisions", [](const PyVecEnv& e) { return e.env->agent_decisions(); })
      .def_property_readonly("bot_decisions", [](const PyVecEnv& e) { return e.env->bot_decisions(); })
      .def("reset", [](PyVecEnv& e) {
        EnvGuard g(e);
        absl::Status s;
        {
          py::gil_scoped_release release;
          s = e.env->Reset();
        }
        ThrowIfError(s);
      }, "Every table back to its first match (the seeds given).")
      .def("step", [](PyVecEnv& e, py::handle actions) {
        if (!py::isinstance<py::array>(actions))
          throw py::type_error("actions must be a numpy array of integers, one per table");
        py::array a = py::reinterpret_borrow<py::array>(actions);
        const int n = e.env->num_envs();
        if (a.ndim() != 1 || a.shape(0) != n)
          throw py::value_error(absl::StrCat("actions must have shape (", n, ",), not ",
                                             py::str(py::tuple(a.attr("shape"))).cast<std::string>()));
        const char kind = a.dtype().kind();
        if (kind != 'i' && kind != 'u')
          throw py::type_error(absl::StrCat("actions must be integers, not dtype ",
                                            py::str(a.dtype()).cast<std::string>()));
        auto a32 = py::array_t<int32_t, py::array::c_style | py::array::forcecast>::ensure(a);
        if (kind == 'i' && a.dtype().itemsize() > 4) {
          // A value that does not fit in 32 bits is not an action: refuse, not wrap.
          auto a64 = py::array_t<int64_t, py::array::c_style | py::array::forcecast>::ensure(a);
          for (py::ssize_t i = 0; i < n; ++i)
            if (a64.data()[i] != static_cast<int32_t>(a64.data()[i]))
              throw py::value_error(absl::StrCat("table ", i, ": action ", a64.data()[i],
                                                 " is outside the action space"));
        }
        EnvGuard g(e);
        absl::Status s;
        {
          py::gil_scoped_release release;
          s = e.env->Step(a32.data());
        }
        ThrowIfError(s);
      }, py::arg("actions"),
         "Applies one action index per table for its seat to act, then plays the bots' seats "
         "up to the next decision of an agent seat (new hands and matches start by themselves). "
         "An action that is not legal at its table raises ValueError and no table changes.")
      .def_property_readonly("obs", [](py::object self) {
        const VecEnv& v = *self.cast<PyVecEnv&>().env;
        if (!v.options().observation_tensor) return py::object(py::none());
        return py::object(View(v.obs(), {v.num_envs(), v.encoder().observation_size()}, self));
      }, "float32 (n, observation_size): the observation tensor of each table's seat to act.")
      .def_property_readonly("info_state", [](py::object self) {
        const VecEnv& v = *self.cast<PyVecEnv&>().env;
        if (!v.options().info_state) return py::object(py::none());
        return py::object(View(v.info(), {v.num_envs(), v.encoder().info_state_size()}, self));
      }, "float32 (n, info_state_size), when made with info_state=True.")
      .def_property_readonly("mask", [](py::object self) {
        const VecEnv& v = *self.cast<PyVecEnv&>().env;
        return View(v.mask(), {v.num_envs(), v.space().size()}, self).attr("view")("bool");
      }, "bool (n, num_actions): the legal actions of each table's seat to act.")
      .def_property_readonly("legal", [](py::object self) {
        const VecEnv& v = *self.cast<PyVecEnv&>().env;
        return View(v.legal(), {v.num_envs(), VecEnv::kMaxLegal}, self);
      }, "int16 (n, 96): the legal action indices, -1 padded (num_legal per row).")
      .def_property_readonly("num_legal", [](py::object self) {
        const VecEnv& v = *self.cast<PyVecEnv&>().env;
        return View(v.num_legal(), {v.num_envs()}, self);
      })
      .def_property_readonly("seat", [](py::object self) {
        const VecEnv& v = *self.cast<PyVecEnv&>().env;
        return View(v.seat(), {v.num_envs()}, self);
      }, "int32 (n,): the seat to act at each table.")
      .def_property_readonly("phase", [](py::object self) {
        const VecEnv& v = *self.cast<PyVecEnv&>().env;
        return View(v.phase(), {v.num_envs()}, self);
      }, "int32 (n,): the phase id (tarock_engine.PHASES) at each table.")
      .def_property_readonly("reward", [](py::object self) {
        const VecEnv& v = *self.cast<PyVecEnv&>().env;
        return View(v.reward(), {v.num_envs(), v.num_seats()}, self);
      }, "float32 (n, seats): the scores of the hands that ended in the last step, per seat.")
      .def_property_readonly("dup_reward", [](py::object self) {
        const VecEnv& v = *self.cast<PyVecEnv&>().env;
        return View(v.dup_reward(), {v.num_envs(), v.num_seats()}, self);
      }, "float32 (n, seats): duplicate-adjusted scores (duplicate=True), reported when the "
         "group's last table finished the hand.")
      .def_property_readonly("hand_done", [](py::object self) {
        const VecEnv& v = *self.cast<PyVecEnv&>().env;
        return View(v.hand_done(), {v.num_envs()}, self).attr("view")("bool");
      })
      .def_property_readonly("dup_done", [](py::object self) {
        const VecEnv& v = *self.cast<PyVecEnv&>().env;
        return View(v.dup_done(), {v.num_envs()}, self).attr("view")("bool");
      }, "bool (n,): dup_reward holds a finished duplicate hand of this table.")
      .def_property_readonly("match_done", [](py::object self) {
        const VecEnv& v = *self.cast<PyVecEnv&>().env;
        return View(v.match_done(), {v.num_envs()}, self).attr("view")("bool");
      })
      .def_property_readonly("hand_index", [](py::object self) {
        const VecEnv& v = *self.cast<PyVecEnv&>().env;
        return View(v.hand_index(), {v.num_envs()}, self);
      })
      .def_property_readonly("match_seed", [](py::object self) {
        const VecEnv& v = *self.cast<PyVecEnv&>().env;
        return View(v.match_seed(), {v.num_envs()}, self);
      }, "uint64 (n,): the seed of each table's current match (the arena's match seed).")
      .def("teacher_actions", [](PyVecEnv& e, const std::string& bot) {
        EnvGuard g(e);
        py::array_t<int32_t> out(e.env->num_envs());
        absl::Status s;
        int32_t* data = out.mutable_data();
        {
          py::gil_scoped_release release;
          s = e.env->TeacherActions(bot, data);
        }
        ThrowIfError(s);
        return out;
      }, py::arg("bot"),
         "int32 (n,): the action each table's seat to act would get from the bundled bot "
         "`bot` (random, heuristic, search): labels for imitation. Changes no table.")
      .def("teacher_values", [](PyVecEnv& e, const std::string& bot) {
        EnvGuard g(e);
        py::array_t<float> out({e.env->num_envs(), e.env->space().size()});
        absl::Status s;
        float* data = out.mutable_data();
        {
          py::gil_scoped_release release;
          s = e.env->TeacherValues(bot, data);
        }
        ThrowIfError(s);
        return out;
      }, py::arg("bot") = "search",
         "float32 (n, num_actions): the search bot's value of each legal action of each "
         "table's seat to act (its mean utility over its determinizations: that seat's score "
         "minus the others' mean), NaN for actions it did not value and for whole rows "
         "outside the play, the talon and the discards: soft targets for imitation. "
         "$TAROCK_SEARCH_OPTIONS sets its iterations. Changes no table.")
      .def("observation", [](PyVecEnv& e, int i) {
        if (i < 0 || i >= e.env->num_envs()) throw py::value_error("table index out of range");
        return ObservationToJson(e.env->ObserveCurrent(i));
      }, py::arg("table"), "The JSON observation of table i's seat to act (as its bot sees it).")
      .def("text", [](PyVecEnv& e, int i) {
        if (i < 0 || i >= e.env->num_envs()) throw py::value_error("table index out of range");
        return e.env->encoder().Text(e.env->ObserveCurrent(i));
      }, py::arg("table"))
      .def("controller", [](PyVecEnv& e, int i, int seat) {
        if (i < 0 || i >= e.env->num_envs() || seat < 0 || seat >= e.env->num_seats())
          throw py::value_error("table or seat out of range");
        const std::string& c = e.env->Controller(i, seat);
        return c.empty() ? std::string("agent") : c;
      }, py::arg("table"), py::arg("seat"));
}

}  // namespace tarock::python
