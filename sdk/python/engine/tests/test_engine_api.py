"""tarock_engine in process: every variant and option, the action space, bad
input (one exception, the state unchanged), clone, threads."""

from __future__ import annotations

import json
import random
import threading

import numpy as np
import pytest

from engine_testlib import SEATS, VARIANTS

import tarock_engine as te


def play_random(state: te.State, rng: random.Random) -> int:
    n = 0
    game = state.game
    while not state.is_terminal:
        legal = state.legal_actions()
        text = state.legal_actions_text()
        assert len(legal) == len(text) > 0 and min(legal) >= 0
        assert [game.action_text(i) for i in legal] == text
        assert [game.action_index(t) for t in text] == legal
        mask = state.legal_mask()
        assert mask.dtype == bool and mask.shape == (game.num_actions,)
        out = np.ones(game.num_actions, dtype=bool)
        assert state.legal_mask(out=out) is out and (out == mask).all()
        assert sorted(mask.nonzero()[0].tolist()) == sorted(legal)
        k = rng.randrange(len(legal))
        state.apply(legal[k] if n % 2 else text[k])
        n += 1
    return n


def test_every_variant_is_there() -> None:
    names = [v["name"] for v in te.variants()]
    assert sorted(names) == VARIANTS
    for v in te.variants():
        assert te.Game(v["name"]).num_seats == SEATS[v["name"]] == v["num_seats"]


@pytest.mark.parametrize("variant", VARIANTS)
def test_random_hands_through_ints_and_text(variant: str) -> None:
    """Hundreds of random hands per variant, with every option value in turn."""
    info = next(v for v in te.variants() if v["name"] == variant)
    games = [te.Game(variant)]
    for option in info["options"]:
        for choice in option["choices"]:
            games.append(te.Game(variant, {option["name"]: choice}))
    for house in info["house"]:
        games.append(te.Game(variant, {"house": house}))
    rng = random.Random(variant)
    hands = 0
    for i in range(max(200, 2 * len(games))):
        game = games[i % len(games)]
        state = game.new_hand(seed=i, dealer=i % game.num_seats)
        play_random(state, rng)
        assert len(state.scores) == game.num_seats
        r = state.result()
        assert r["scores"] == state.scores and len(r["card_points"]) == len(r["card_thirds"])
        assert [t for _, t in state.history] == [game.action_text(a) for a in state.history_actions]
        hands += 1
    assert hands >= 200


def test_a_hand_from_given_cards_and_its_record() -> None:
    game = te.Game("slovenian-4p")
    dealt = game.deal(seed=11, dealer=2)
    state = game.new_hand(hands=dealt["hands"], talon=dealt["talon"], dealer=2, radli=[0, 1, 0, 0])
    assert state.deal == game.new_hand(seed=11, dealer=2).deal
    assert state.setup == {"dealer": 2, "radli": [0, 1, 0, 0], "forced_klop": False}
    state.random_playout(5)
    again = game.from_record(state.record())
    assert again.history == state.history and again.scores == state.scores
    half = game.from_record(state.record(), upto=5)
    assert len(half.history) == 5
    wf = te.Game("westfest")
    deck = wf.deal(seed=3)["deck"]
    assert len(deck) == 54
    wstate = wf.new_hand(deck=deck)
    assert wstate.random_playout(1) > 0


def test_bad_input_is_one_exception_and_changes_nothing() -> None:
    with pytest.raises(ValueError, match="unknown variant 'klabberjass'"):
        te.Game("klabberjass")
    with pytest.raises(ValueError, match="no_such_option"):
        te.Game("slovenian-4p", {"no_such_option": "1"})
    game = te.Game("slovenian-4p")
    state = game.new_hand(seed=1)
    before = state.record()
    with pytest.raises(ValueError) as e:
        state.apply("play T21")
    assert "illegal action 'play T21'" in str(e.value) and "legal: pass, bid two" in str(e.value)
    with pytest.raises(ValueError, match="bad action"):
        state.apply("fly away")
    with pytest.raises(ValueError, match="outside the action space"):
        state.apply(game.num_actions)
    with pytest.raises(ValueError, match="outside the action space"):
        state.apply(-1)
    with pytest.raises(ValueError, match="outside the action space"):
        state.apply(2**80)
    with pytest.raises(TypeError, match="not float"):
        state.apply(1.0)
    with pytest.raises(TypeError, match="not bool"):
        state.apply(True)
    with pytest.raises(ValueError, match="other options"):
        te.Game("slovenian-4p", {"imperator": "off"}).from_record(before)
    with pytest.raises(ValueError, match="apply_many: action 1"):
        state.apply_many([game.action_index("pass"), game.action_index("play T21")])
    with pytest.raises(ValueError, match="legal_mask: out"):
        state.legal_mask(out=np.zeros(game.num_actions, dtype=np.int8))
    with pytest.raises(RuntimeError, match="not over"):
        state.scores
    with pytest.raises(ValueError, match="seat 4 is not a seat"):
        state.observation(4)
    assert state.record() == before
    with pytest.raises(ValueError, match="twice|duplicate"):
        game.new_hand(hands=[["T1"] * 12] * 4, talon=["T2"] * 6)
    with pytest.raises(ValueError):
        game.new_hand(hands=[["T1"]], talon=[])
    with pytest.raises(ValueError, match="dealer 9"):
        game.new_hand(seed=1, dealer=9)
    with pytest.raises(ValueError):
        game.from_record("{not json")
    with pytest.raises(ValueError, match="record action 0"):
        game.from_record(json.dumps({"variant": "slovenian-4p", **game.deal(1), "dealer": 0,
                                     "actions": ["play T1"]}))
    done = game.new_hand(seed=2)
    done.random_playout(1)
    with pytest.raises(RuntimeError, match="the hand is over"):
        done.apply(0)


def test_clone_is_independent() -> None:
    game = te.Game("tapp-tarock")
    a = game.new_hand(seed=4)
    a.apply(a.legal_actions()[0])
    b = a.clone()
    b.random_playout(9)
    assert not a.is_terminal and b.is_terminal and len(a.history) == 1


def test_states_from_threads() -> None:
    """Each thread its own clone, playing without the GIL; a State shared by
    threads is served or refused with RuntimeError, never corrupted."""
    game = te.Game("slovenian-4p")
    root = game.new_hand(seed=8)
    errors: list[BaseException] = []
    shared = [root.clone() for _ in range(200)]
    refused = [0]

    def work(k: int) -> None:
        try:
            for i, s in enumerate(shared):
                c = root.clone()
                c.random_playout(k * 1000 + i)
                assert c.is_terminal
                try:
                    s.random_playout(k)
                    s.legal_actions()
                except RuntimeError as e:
                    assert "in use by another thread" in str(e)
                    refused[0] += 1
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for s in shared:
        assert s.is_terminal
        again = game.from_record(s.record())
        assert again.scores == s.scores


def test_objects_keep_what_they_use_alive() -> None:
    import gc
    state = te.Game("slovenian-3p").new_hand(seed=3)
    sampler = te.Sampler(te.Game("slovenian-3p"), state.decision_request_proto(state.current_seat))
    gc.collect()
    assert state.game.variant == "slovenian-3p" and state.random_playout(1) > 0
    assert sampler.sample(1).current_seat == sampler.seat


def test_a_sample_from_a_corrupted_observation_is_refused() -> None:
    from tarock_bot._proto import pb
    game = te.Game("slovenian-4p")
    rng = random.Random(6)
    for seed in range(100):  # a hand with six cards played, seen from the seat to act
        state = game.new_hand(seed=seed)
        while not state.is_terminal and (
                state.phase != "play" or sum(a.startswith("play ") for _, a in state.history) < 6):
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
        if not state.is_terminal:
            break
    seat = state.current_seat
    good = pb.DecisionRequest.FromString(state.decision_request_proto(seat))
    assert te.Sampler(game, good.SerializeToString()).samples(5, 1)
    # The seat claims a card another seat already played: no deal fits.
    bad = pb.DecisionRequest()
    bad.CopyFrom(good)
    played = next(e.action.split()[1] for e in good.observation.history
                  if e.action.startswith("play ") and e.seat != seat)
    bad.observation.hand.append(played)
    with pytest.raises(ValueError):
        te.Sampler(game, bad.SerializeToString()).sample(1)
    with pytest.raises(ValueError, match="not a serialized"):
        te.Sampler(game, b"\xff\xff\xff")
    with pytest.raises(ValueError, match="variant"):
        te.Sampler(te.Game("slovenian-3p"), good.SerializeToString())
    # Before the announcements the Austrian and Czech samplers do not work: said so.
    wf = te.Game("westfest")
    early = wf.new_hand(seed=1)
    with pytest.raises(NotImplementedError, match="announcements"):
        te.Sampler(wf, early.decision_request_proto(early.current_seat))


def _deal_seed(match_seed: int, salt: str, hand: int, attempt: int) -> int:
    """referee/engine/deal_seed.h, written again here from its documentation."""
    import hashlib
    import hmac
    key = f"tarock-deal:v2:{match_seed}:{salt}".encode()
    digest = hmac.new(key, f"{hand}:{attempt}".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big")


def test_an_arena_matchs_deals_from_its_seed_and_salt() -> None:
    """match_hand and VecEnv deal an arena match's hands from its published seed and salt
    (the record's "seed" and "seed_salt"); without the salt, other cards."""
    game = te.Game("slovenian-4p")
    seed, salt = 123456789, "0f1e2d3c4b5a69788796a5b4c3d2e1f0"
    for hand in range(4):
        dealer = hand % 4  # first_dealer 0, no void deals
        expected = game.new_hand(seed=_deal_seed(seed, salt, hand, 0), dealer=dealer).deal
        assert game.match_hand(seed, hand, salt=salt).deal == expected
        assert game.match_hand(seed, hand).deal != expected
        assert game.match_hand(seed, hand).deal == game.new_hand(
            seed=_deal_seed(seed, "", hand, 0), dealer=dealer).deal
    assert game.match_hand(seed, 1, attempt=2, salt=salt).deal == game.new_hand(
        seed=_deal_seed(seed, salt, 1, 2), dealer=1).deal
    def as_dict(o):
        return json.loads(o) if isinstance(o, str) else o
    state = game.match_hand(seed, 0, salt=salt)
    for s, deals_as in ((salt, state), ("", game.match_hand(seed, 0))):
        env = te.VecEnv("slovenian-4p", 1, seed=seed, salt=s, observation_tensor=False)
        env.reset()
        assert int(env.match_seed[0]) == seed
        assert as_dict(env.observation(0)) == as_dict(deals_as.observation(deals_as.current_seat))
