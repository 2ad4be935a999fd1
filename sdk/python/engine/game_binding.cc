// Game and State: the engine's variants as Python objects (docs/python.md).
//
// Every rule is the engine's: these functions only convert between Python
// values and the engine's (game.h), check what comes from Python before the
// engine sees it (an engine precondition broken from Python would be undefined
// behaviour: a crash of the interpreter), and raise the engine's messages.
// A call that fails leaves its State as it was.

#include <Python.h>

#include <cstring>

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "referee/engine/match.h"
#include "referee/engine/random.h"
#include "referee/engine/random_play.h"
#include "referee/engine/record.h"
#include "referee/engine/registry.h"
#include "referee/protocol/convert.h"
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
    case absl::StatusCode::kUnimplemented:
      PyErr_SetString(PyExc_NotImplementedError, msg.c_str());
      throw py::error_already_set();
    default:
      throw std::runtime_error(msg);
  }
}

void CheckNotBusy(const PyState& s) {
  if (s.busy.load(std::memory_order_acquire))
    throw std::runtime_error("this State is in use by another thread (a State is not shared "
                             "between threads; clone() it for each thread)");
}

std::shared_ptr<PyState> WrapState(std::shared_ptr<const PyGame> game,
                                   std::unique_ptr<State> state) {
  auto s = std::make_shared<PyState>();
  s->game = std::move(game);
  s->state = std::move(state);
  return s;
}

namespace {

py::list CardList(CardSet set) {
  py::list out;
  for (Card c : set) out.append(CardName(c));
  return out;
}

CardSet ParseCards(const std::vector<std::string>& names, const std::string& what) {
  CardSet set;
  for (const std::string& n : names) {
    absl::StatusOr<Card> c = ParseCard(n);
    if (!c.ok()) throw py::value_error(absl::StrCat(what, ": ", c.status().message()));
    if (set.Contains(*c)) throw py::value_error(absl::StrCat(what, ": card ", n, " twice"));
    set.Add(*c);
  }
  return set;
}

std::vector<Card> ParseCardSeq(const std::vector<std::string>& names, const std::string& what) {
  std::vector<Card> out;
  for (const std::string& n : names) {
    absl::StatusOr<Card> c = ParseCard(n);
    if (!c.ok()) throw py::value_error(absl::StrCat(what, ": ", c.status().message()));
    out.push_back(*c);
  }
  return out;
}

py::dict DealToDict(const Deal& d) {
  py::dict out;
  py::list hands;
  for (CardSet h : d.hands) hands.append(CardList(h));
  out["hands"] = hands;
  py::list talon, deck;
  for (Card c : d.talon) talon.append(CardName(c));
  for (Card c : d.deck) deck.append(CardName(c));
  out["talon"] = talon;
  out["deck"] = deck;
  return out;
}

py::dict ResultToDict(const HandResult& r) {
  py::dict out;
  out["scores"] = r.scores;
  out["radli"] = r.radli;
  out["redeal"] = r.redeal;
  out["counts_as_hand"] = r.counts_as_hand;
  out["next_forced_klop"] = r.next_forced_klop;
  out["declarer"] = r.declarer;
  out["contract"] = r.contract;
  out["partner"] = r.partner;
  out["declarer_won"] = r.declarer_won;
  out["game_kontra_level"] = r.game_kontra_level;
  out["card_thirds"] = r.card_thirds;
  py::list points;
  for (int t : r.card_thirds) points.append(RoundThirds(t));
  out["card_points"] = points;
  out["tricks"] = r.tricks;
  py::list bonuses;
  for (const BonusResult& b : r.bonuses) {
    py::dict d;
    d["name"] = b.name;
    d["side"] = b.side;
    d["announcer"] = b.announcer;
    d["won"] = b.won;
    d["kontra_level"] = b.kontra_level;
    d["value"] = b.value;
    d["seat"] = b.seat;
    bonuses.append(d);
  }
  out["bonuses"] = bonuses;
  py::list penalties;
  for (const Penalty& p : r.penalties) {
    py::dict d;
    d["seat"] = p.seat;
    d["points"] = p.points;
    d["reason"] = p.reason;
    penalties.append(d);
  }
  out["penalties"] = penalties;
  return out;
}

py::dict InfoToDict(const VariantInfo& info) {
  py::dict out;
  out["name"] = info.name;
  out["title"] = info.title;
  out["rules_source"] = info.rules_source;
  out["rules_page"] = info.rules_page;
  out["num_seats"] = info.num_seats;
  out["hand_size"] = info.hand_size;
  out["talon_size"] = info.talon_size;
  out["radl_penalty"] = info.radl_penalty;
  out["zero_total_forces_klop"] = info.zero_total_forces_klop;
  out["starting_account"] = info.starting_account;
  out["contracts"] = info.contracts;
  out["bonuses"] = info.bonuses;
  py::list options;
  for (const OptionSpec& o : info.options) {
    py::dict d;
    d["name"] = o.name;
    d["default"] = o.default_value;
    d["choices"] = o.choices;
    d["help"] = o.help;
    options.append(d);
  }
  out["options"] = options;
  py::dict sets;
  for (const OptionSet& s : info.option_sets) sets[py::str(s.name)] = s.values;
  out["house"] = sets;
  return out;
}

// The action `a` (int index or text) as an engine Action of `g`'s space;
// ValueError/TypeError when it names nothing of the space.
Action ToAction(const PyGame& g, py::handle a) {
  if (PyLong_Check(a.ptr()) && !PyBool_Check(a.ptr())) {
    int overflow = 0;
    const long long i = PyLong_AsLongLongAndOverflow(a.ptr(), &overflow);
    if (overflow != 0 || i < 0 || i >= g.space.size())
      throw py::value_error(absl::StrCat("action index ", py::str(a).cast<std::string>(),
                                         " is outside the action space [0, ", g.space.size(), ")"));
    return g.space.ActionAt(static_cast<int>(i));
  }
  if (PyUnicode_Check(a.ptr())) {
    Py_ssize_t n = 0;
    const char* text = PyUnicode_AsUTF8AndSize(a.ptr(), &n);
    if (text == nullptr) throw py::error_already_set();
    absl::StatusOr<Action> parsed = g.game->ParseAction(absl::string_view(text, n));
    ThrowIfError(parsed.status());
    if (g.space.Index(*parsed) < 0)
      throw py::value_error(absl::StrCat("action '", std::string(text, n),
                                         "' is not in this variant's action space"));
    return *parsed;
  }
  throw py::type_error(absl::StrCat("an action is an int (an index of the action space) or a str "
                                    "(\"play T21\"), not ",
                                    py::str(a.get_type().attr("__name__")).cast<std::string>()));
}

// Applies `a` if legal, else raises with the engine's message (it names the
// action and the legal ones). The state is unchanged on error.
void ApplyChecked(PyState& s, Action a) {
  ActionList legal;
  s.state->LegalActions(&legal);
  if (legal.Contains(a)) {
    s.state->Apply(a);
    return;
  }
  ThrowIfError(s.state->ApplyChecked(a));  // the engine's message; never applies here
  throw std::logic_error("unreachable");
}

py::list LegalIndices(const PyState& s) {
  ActionList legal;
  s.state->LegalActions(&legal);
  PyObject* list = PyList_New(legal.size);
  if (list == nullptr) throw py::error_already_set();
  for (int i = 0; i < legal.size; ++i)
    PyList_SET_ITEM(list, i, PyLong_FromLong(s.game->space.Index(legal.items[i])));
  return py::reinterpret_steal<py::list>(list);
}

std::unique_ptr<State> NewHandOrThrow(const PyGame& g, const Deal& deal, const HandSetup& setup) {
  absl::StatusOr<std::unique_ptr<State>> state = g.game->NewHand(deal, setup);
  ThrowIfError(state.status());
  return std::move(*state);
}

HandSetup MakeSetup(const PyGame& g, int dealer, std::optional<std::vector<int>> radli,
                    bool forced_klop) {
  const int n = g.game->num_seats();
  if (dealer < 0 || dealer >= n)
    throw py::value_error(absl::StrCat("dealer ", dealer, " is not a seat (0..", n - 1, ")"));
  HandSetup setup;
  setup.dealer = dealer;
  if (radli) {
    if (static_cast<int>(radli->size()) != n)
      throw py::value_error(absl::StrCat("radli: want one per seat (", n, "), got ", radli->size()));
    for (int r : *radli)
      if (r < 0) throw py::value_error("radli: a seat's radli cannot be negative");
    setup.radli = *radli;
  }
  setup.forced_klop = forced_klop;
  return setup;
}

std::vector<std::pair<int, Action>> SeatedHistory(const PyState& s) {
  // The engine keeps the actions; who took each follows from replaying them.
  std::unique_ptr<State> replay = NewHandOrThrow(*s.game, s.state->GetDeal(), s.state->Setup());
  std::vector<std::pair<int, Action>> out;
  for (Action a : s.state->History()) {
    out.emplace_back(replay->CurrentSeat(), a);
    replay->Apply(a);
  }
  return out;
}

void CheckSeat(const PyState& s, int seat) {
  const int n = s.game->game->num_seats();
  if (seat < 0 || seat >= n)
    throw py::value_error(absl::StrCat("seat ", seat, " is not a seat (0..", n - 1, ")"));
}

const HandResult& ResultOrThrow(const PyState& s, HandResult* keep) {
  if (!s.state->IsTerminal())
    throw std::runtime_error(absl::StrCat("the hand is not over (phase ", s.state->PhaseName(),
                                          ", seat ", s.state->CurrentSeat(), " to act)"));
  *keep = s.state->Result();
  return *keep;
}

}  // namespace

void RegisterGame(py::module_& m) {
  m.def("variants", [] {
    py::list out;
    for (const VariantInfo& info : Registry::Global().List()) out.append(InfoToDict(info));
    return out;
  }, "Every variant of the engine with its seats, options (name, default, choices, help), "
     "contracts and bonuses.");
  py::class_<PyGame, std::shared_ptr<PyGame>>(m, "Game",
      "A variant with its options: immutable, shareable between threads.")
      .def(py::init([](const std::string& variant, const Options& options) {
             auto game = Registry::Global().Create(variant, options);
             ThrowIfError(game.status());
             return std::make_shared<PyGame>(std::move(*game));
           }),
           py::arg("variant"), py::arg("options") = Options{})
      .def_property_readonly("variant", [](const PyGame& g) { return g.game->info().name; })
      .def_property_readonly("options", [](const PyGame& g) { return g.game->options(); },
                             "The complete options, defaults filled in.")
      .def_property_readonly("info", [](const PyGame& g) { return InfoToDict(g.game->info()); })
      .def_property_readonly("num_seats", [](const PyGame& g) { return g.game->num_seats(); })
      .def_property_readonly("num_actions", [](const PyGame& g) { return g.space.size(); },
                             "The size of the fixed integer action space.")
      .def_property_readonly("action_names", [](const PyGame& g) { return g.space.Names(); },
                             "The text of every index of the action space, in index order.")
      .def("action_index", [](const PyGame& g, const std::string& text) {
             absl::StatusOr<int> i = g.space.Parse(text);
             ThrowIfError(i.status());
             return *i;
           }, py::arg("text"), "The index of an action text (\"play T21\").")
      .def("action_text", [](const PyGame& g, int64_t index) {
             absl::StatusOr<Action> a = g.space.CheckedActionAt(index);
             ThrowIfError(a.status());
             return g.game->ActionToString(*a);
           }, py::arg("index"), "The protocol text of an action index.")
      .def("deal", [](const PyGame& g, uint64_t seed, int dealer) {
             MakeSetup(g, dealer, std::nullopt, false);
             return DealToDict(g.game->DealCards(seed, dealer));
           }, py::arg("seed"), py::arg("dealer") = 0,
           "The deal the engine makes from a seed (as `tarock deal` prints it).")
      .def("new_hand",
           [](std::shared_ptr<PyGame> g, std::optional<uint64_t> seed, int dealer,
              std::optional<std::vector<std::vector<std::string>>> hands,
              std::optional<std::vector<std::string>> talon,
              std::optional<std::vector<std::string>> deck,
              std::optional<std::vector<int>> radli, bool forced_klop) {
             HandSetup setup = MakeSetup(*g, dealer, radli, forced_klop);
             Deal deal;
             if (seed) {
               if (hands || talon || deck)
                 throw py::value_error("give a seed or the cards (hands, talon, deck), not both");
               deal = g->game->DealCards(*seed, dealer);
             } else if (deck) {
               if (hands || talon) throw py::value_error("give a deck or hands and talon, not both");
               deal.deck = ParseCardSeq(*deck, "deck");
               deal.hands.assign(g->game->num_seats(), CardSet());
               const int t = g->game->info().talon_size;
               if (static_cast<int>(deal.deck.size()) >= t)
                 deal.talon.assign(deal.deck.begin(), deal.deck.begin() + t);
             } else if (hands && talon) {
               for (size_t i = 0; i < hands->size(); ++i)
                 deal.hands.push_back(ParseCards((*hands)[i], absl::StrCat("hand of seat ", i)));
               deal.talon = ParseCardSeq(*talon, "talon");
             } else {
               throw py::value_error("new_hand wants a seed, or hands and talon, or a deck");
             }
             return WrapState(g, NewHandOrThrow(*g, deal, setup));
           },
           py::arg("seed") = py::none(), py::arg("dealer") = 0, py::arg("hands") = py::none(),
           py::arg("talon") = py::none(), py::arg("deck") = py::none(),
           py::arg("radli") = py::none(), py::arg("forced_klop") = false,
           "A new hand: dealt from a seed, or from the cards given (hands and talon, or a deck "
           "for westfest). The engine checks the deal and the setup.")
      .def("match_hand",
           [](std::shared_ptr<PyGame> g, uint64_t match_seed, int hand_index, int attempt,
              int first_dealer, std::optional<std::vector<int>> radli, bool forced_klop,
              const std::string& salt) {
             const int n = g->game->num_seats();
             if (hand_index < 0 || attempt < 0)
               throw py::value_error("hand_index and attempt must be >= 0");
             if (attempt >= MatchOptions{}.max_redeals)
               throw py::value_error(absl::StrCat("attempt: a match deals a hand again at most ",
                                                  MatchOptions{}.max_redeals - 1, " times"));
             MakeSetup(*g, first_dealer, std::nullopt, false);
             // The match's own bookkeeping (match.h) decides the deal of hand i,
             // attempt k: it is driven there with neutral results.
             MatchOptions mo;
             mo.num_hands = (hand_index / n + 1) * n;
             mo.seed = match_seed;
             mo.salt = salt;
             mo.first_dealer = first_dealer;
             absl::StatusOr<MatchProgress> progress = MatchProgress::Start(*g->game, mo);
             ThrowIfError(progress.status());
             HandResult neutral;
             neutral.scores.assign(n, 0);
             neutral.radli.assign(n, 0);
             for (int i = 0; i < hand_index; ++i) ThrowIfError(progress->Record(neutral));
             HandResult void_deal = neutral;
             void_deal.redeal = true;
             for (int k = 0; k < attempt; ++k) ThrowIfError(progress->Record(void_deal));
             MatchProgress::NextHand next = progress->Next();
             HandSetup setup = MakeSetup(*g, next.setup.dealer, radli, forced_klop);
             return WrapState(g, NewHandOrThrow(*g, next.deal, setup));
           },
           py::arg("match_seed"), py::arg("hand_index"), py::arg("attempt") = 0,
           py::arg("first_dealer") = 0, py::arg("radli") = py::none(),
           py::arg("forced_klop") = false, py::arg("salt") = "",
           "Hand `hand_index` of a match played from `match_seed` and `salt` (an arena match's "
           "published seed and seed salt; \"\" for `tarock match --seed`), as the referee deals it (its dealer, and `attempt` void deals before it). "
           "radli and forced_klop carry from the hands before, which only the match knows.")
      .def("from_record",
           [](std::shared_ptr<PyGame> g, const std::string& json, std::optional<int> upto) {
             absl::StatusOr<HandRecord> rec = ParseHandRecord(json);
             ThrowIfError(rec.status());
             absl::StatusOr<Options> opts = Registry::Global().CompleteOptions(rec->variant, rec->options);
             ThrowIfError(opts.status());
             if (rec->variant != g->game->info().name || *opts != g->game->options())
               throw py::value_error(absl::StrCat(
                   "the record is of ", rec->variant, " with other options than this game (",
                   g->game->info().name, "): use tarock_engine.replay, or the record's Game"));
             auto state = WrapState(g, NewHandOrThrow(*g, rec->deal, rec->setup));
             const int n = static_cast<int>(rec->actions.size());
             const int stop = upto ? std::min(*upto, n) : n;
             if (stop < 0) throw py::value_error("upto must be >= 0");
             for (int i = 0; i < stop; ++i) {
               absl::Status st = state->state->ApplyText(rec->actions[i]);
               if (!st.ok())
                 throw py::value_error(absl::StrCat("record action ", i, " '", rec->actions[i],
                                                    "': ", st.message()));
             }
             return state;
           },
           py::arg("record"), py::arg("upto") = py::none(),
           "The hand of a hand record (JSON; `tarock match --record`, `tarock deal`), with its "
           "first `upto` actions applied (all by default). The record's variant and options "
           "must be this game's (see tarock_engine.replay).")
      .def("__repr__", [](const PyGame& g) {
        std::vector<std::string> opts;
        for (const auto& [k, v] : g.game->options()) opts.push_back(absl::StrCat(k, "=", v));
        return absl::StrCat("Game('", g.game->info().name, "', {", absl::StrJoin(opts, ", "), "})");
      });

  py::class_<PyState, std::shared_ptr<PyState>>(m, "State",
      "One hand in progress. Not shared between threads: clone() it for each thread.")
      .def_property_readonly("game", [](const PyState& s) {
        return std::const_pointer_cast<PyGame>(s.game);
      })
      .def_property_readonly("current_seat", [](const PyState& s) {
        CheckNotBusy(s);
        return s.state->CurrentSeat();
      }, "The seat to act; -1 when the hand is over.")
      .def_property_readonly("is_terminal", [](const PyState& s) {
        CheckNotBusy(s);
        return s.state->IsTerminal();
      })
      .def_property_readonly("phase", [](const PyState& s) {
        CheckNotBusy(s);
        return s.state->PhaseName();
      })
      .def("legal_actions", [](const PyState& s) {
        CheckNotBusy(s);
        return LegalIndices(s);
      }, "The legal actions as indices of the action space, in the engine's order.")
      .def("legal_actions_text", [](const PyState& s) {
        CheckNotBusy(s);
        ActionList legal;
        s.state->LegalActions(&legal);
        std::vector<std::string> out;
        for (Action a : legal) out.push_back(s.game->game->ActionToString(a));
        return out;
      }, "The legal actions in the protocol's text.")
      .def("legal_mask", [](const PyState& s, std::optional<py::array> out) {
        CheckNotBusy(s);
        py::array_t<bool> mask;
        if (out) {
          // Written in place: no allocation per decision.
          if (!py::isinstance<py::array_t<bool>>(*out) || out->ndim() != 1 ||
              out->shape(0) != s.game->space.size() || !(out->flags() & py::array::c_style) ||
              !out->writeable())
            throw py::value_error(absl::StrCat("legal_mask: out must be a writable contiguous 1-d "
                                               "bool array of ", s.game->space.size(), " entries"));
          mask = py::reinterpret_borrow<py::array_t<bool>>(*out);
        } else {
          mask = py::array_t<bool>(s.game->space.size());
        }
        ActionList legal;
        s.state->LegalActions(&legal);
        s.game->space.Mask(legal, reinterpret_cast<uint8_t*>(mask.mutable_data()));
        return mask;
      }, py::arg("out") = py::none(),
      "A numpy bool array over the action space: True where legal. With `out` (a bool array "
      "of num_actions entries) it is written there and returned.")
      .def("apply", [](PyState& s, py::handle action) {
        CheckNotBusy(s);
        ApplyChecked(s, ToAction(*s.game, action));
      }, py::arg("action"),
      "Applies one legal action: an index of the action space or its text (\"play T21\"). "
      "An illegal or unknown action raises ValueError naming it and the legal ones; the "
      "state is then unchanged.")
      .def("apply_many", [](PyState& s, py::array_t<int64_t, py::array::c_style | py::array::forcecast> actions) {
        CheckNotBusy(s);
        if (actions.ndim() != 1) throw py::value_error("apply_many wants a 1-d sequence of indices");
        const int64_t* a = actions.data();
        const int64_t n = actions.shape(0);
        // Checked on a copy first, so that an illegal action leaves the state unchanged.
        std::unique_ptr<State> work = s.state->Clone();
        for (int64_t i = 0; i < n; ++i) {
          if (a[i] < 0 || a[i] >= s.game->space.size())
            throw py::value_error(absl::StrCat("apply_many: action ", i, " (", a[i],
                                               ") is outside the action space"));
          ActionList legal;
          work->LegalActions(&legal);
          const Action act = s.game->space.ActionAt(static_cast<int>(a[i]));
          if (!legal.Contains(act)) {
            absl::Status st = work->ApplyChecked(act);
            throw py::value_error(absl::StrCat("apply_many: action ", i, ": ", st.message()));
          }
          work->Apply(act);
        }
        s.state = std::move(work);
      }, py::arg("actions"),
      "Applies a sequence of action indices; all or nothing (the state is unchanged when one "
      "is illegal).")
      .def("random_playout", [](PyState& s, uint64_t seed) {
        StateGuard guard(s);
        int n = 0;
        {
          py::gil_scoped_release release;
          Rng rng(seed);
          n = PlayOutRandomly(*s.state, rng);
        }
        return n;
      }, py::arg("seed"),
      "Plays uniformly random legal actions to the end of the hand, in C++ (the GIL is "
      "released); returns how many were applied.")
      .def("clone", [](const PyState& s) {
        CheckNotBusy(s);
        return WrapState(s.game, s.state->Clone());
      }, "An independent copy (the engine's fixed-size state).")
      .def("__copy__", [](const PyState& s) {
        CheckNotBusy(s);
        return WrapState(s.game, s.state->Clone());
      })
      .def("__deepcopy__", [](const PyState& s, py::handle) {
        CheckNotBusy(s);
        return WrapState(s.game, s.state->Clone());
      })
      .def_property_readonly("scores", [](const PyState& s) {
        CheckNotBusy(s);
        HandResult r;
        return ResultOrThrow(s, &r).scores;
      }, "Each seat's score of the finished hand (radli applied); RuntimeError before the end.")
      .def("result", [](const PyState& s) {
        CheckNotBusy(s);
        HandResult r;
        return ResultToDict(ResultOrThrow(s, &r));
      }, "The referee's breakdown of the finished hand: scores, radli, declarer, contract, "
         "partner, declarer_won, game_kontra_level, card_thirds/card_points, tricks, bonuses "
         "(name, side, announcer, won, kontra_level, value, seat), penalties.")
      .def("observation", [](const PyState& s, int seat) {
        CheckNotBusy(s);
        CheckSeat(s, seat);
        return py::module_::import("json").attr("loads")(ObservationToJson(s.state->Observe(seat)));
      }, py::arg("seat"),
      "What `seat` may know now, as a dict: the fields of the protocol's Observation (the "
      "engine's JSON of it), with `legal` when the seat is to act.")
      .def("observation_proto", [](const PyState& s, int seat) {
        CheckNotBusy(s);
        CheckSeat(s, seat);
        return py::bytes(ObservationToProto(s.state->Observe(seat)).SerializeAsString());
      }, py::arg("seat"),
      "The tarock.v1.Observation the referee sends `seat` now, serialized.")
      .def("decision_request_proto", [](const PyState& s, int seat, int hand_index) {
        CheckNotBusy(s);
        CheckSeat(s, seat);
        return py::bytes(
            MakeDecisionRequest(s.state->Observe(seat), 0, hand_index, 0).SerializeAsString());
      }, py::arg("seat"), py::arg("hand_index") = 0,
      "The tarock.v1.DecisionRequest the referee would send `seat` now (request id 0, no "
      "times, every event new), serialized.")
      .def("hand", [](const PyState& s, int seat) {
        CheckNotBusy(s);
        CheckSeat(s, seat);
        return CardList(s.state->Observe(seat).hand);
      }, py::arg("seat"), "The cards `seat` holds now.")
      .def_property_readonly("history", [](const PyState& s) {
        CheckNotBusy(s);
        py::list out;
        for (const auto& [seat, a] : SeatedHistory(s))
          out.append(py::make_tuple(seat, s.game->game->ActionToString(a)));
        return out;
      }, "Every action so far as (seat, text), hidden cards included (the full history).")
      .def_property_readonly("history_actions", [](const PyState& s) {
        CheckNotBusy(s);
        std::vector<int> out;
        for (Action a : s.state->History()) out.push_back(s.game->space.Index(a));
        return out;
      }, "Every action so far as indices of the action space.")
      .def_property_readonly("deal", [](const PyState& s) {
        CheckNotBusy(s);
        return DealToDict(s.state->GetDeal());
      }, "The deal this hand started from: hands, talon, deck (westfest).")
      .def_property_readonly("dealer", [](const PyState& s) {
        CheckNotBusy(s);
        return s.state->Setup().dealer;
      })
      .def_property_readonly("setup", [](const PyState& s) {
        CheckNotBusy(s);
        const HandSetup setup = s.state->Setup();
        py::dict d;
        d["dealer"] = setup.dealer;
        d["radli"] = setup.radli;
        d["forced_klop"] = setup.forced_klop;
        return d;
      })
      .def("record", [](const PyState& s, std::optional<uint64_t> seed) {
        CheckNotBusy(s);
        return HandRecordToJson(RecordOf(*s.game->game, *s.state, seed));
      }, py::arg("seed") = py::none(), "The hand record (JSON, the format `tarock replay` reads).")
      .def("__repr__", [](const PyState& s) {
        if (s.busy.load()) return std::string("State(<in use by another thread>)");
        return absl::StrCat("State('", s.game->game->info().name, "', phase=",
                            s.state->PhaseName(), ", current_seat=", s.state->CurrentSeat(),
                            ", actions=", s.state->History().size(), ")");
      });
}

}  // namespace tarock::python
