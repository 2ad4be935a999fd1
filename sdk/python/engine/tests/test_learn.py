"""tarock_engine for learning (issue 46): the Encoder from Python and from a
bot's DecisionRequest, VecEnv (numpy in and out, bots in process, duplicate,
bad input refused with nothing changed), records from `tarock match --record`."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import numpy as np
import pytest

from engine_testlib import BIN, SEATS, VARIANTS, tarock_match

import tarock_engine as te
from tarock_engine import envs, records


@pytest.mark.parametrize("variant", VARIANTS)
def test_encoder_follows_the_state(variant: str) -> None:
    game = te.Game(variant)
    enc = te.Encoder(game)
    assert enc.version == te.ENCODING_VERSION
    assert sum(f[2] for f in enc.fields) == enc.observation_size
    state = game.new_hand(seed=11)
    rng = np.random.default_rng(1)
    n = 0
    while not state.is_terminal:
        seat = state.current_seat
        obs = enc.observation(state, seat)
        assert obs.dtype == np.float32 and obs.shape == (enc.observation_size,)
        mask = enc.mask(state, seat)
        assert (mask == state.legal_mask()).all()
        other = (seat + 1) % game.num_seats
        assert not enc.mask(state, other).any()  # not to act: no legal action
        assert te.PHASES[enc.phase(state)] == state.phase or te.PHASES[enc.phase(state)] == "other"
        info = enc.info_state(state, seat)
        assert (info[:enc.observation_size] == obs).all()
        # From the request a bot receives: the same tensor and mask.
        req = state.decision_request_proto(seat)
        o2, m2, p2 = enc.encode_request(req)
        assert (o2 == obs).all() and (m2 == mask).all() and p2 == enc.phase(state)
        legal = state.legal_actions()
        state.apply(legal[int(rng.integers(len(legal)))])
        n += 1
    assert "Phase: done" in enc.text(state, 0)
    assert enc.privileged(state, 0).shape == (enc.privileged_size,)
    with pytest.raises(ValueError):
        enc.observation(state, game.num_seats)
    with pytest.raises(ValueError):
        enc.encode_request(b"\xff\xff not a request")


def test_vec_env_plays_with_bots_and_duplicate() -> None:
    env = te.VecEnv("slovenian-4p", 8, seed=3, seat_bots=["agent", "heuristic", "random", "heuristic"],
                    duplicate=True)
    assert env.obs.shape == (8, env.observation_size) and env.mask.dtype == bool
    assert [env.controller(1, s) for s in range(4)] == ["heuristic", "agent", "heuristic", "random"]
    rng = np.random.default_rng(0)
    hands = dup = 0
    for _ in range(300):
        assert (env.seat == np.arange(8) % 4).all()  # the agent's seat, rotated per table
        a = envs.random_actions(env, rng)
        assert env.mask[np.arange(8), a].all()
        env.step(a)
        hands += int(env.hand_done.sum())
        dup += int(env.dup_done.sum())
    assert hands > 10 and dup > 0 and env.bot_decisions > 0
    # The teacher's labels are legal and change nothing.
    before = env.obs.copy()
    t = env.teacher_actions("heuristic")
    assert env.mask[np.arange(8), t].all() and (env.obs == before).all()


def test_vec_env_teacher_values(monkeypatch: pytest.MonkeyPatch) -> None:
    """The search bot's values: exactly the legal actions in the phases it searches
    (the play, the talon, the discards), NaN elsewhere; its best action is the one
    with the highest value; no table changes; only the search bot has values."""
    monkeypatch.setenv("TAROCK_SEARCH_OPTIONS", "iterations=8")
    env = te.VecEnv("slovenian-4p", 8, seed=5)
    searched = te.PHASES.index("play"), te.PHASES.index("talon"), te.PHASES.index("discard")
    rows = 0
    for _ in range(60):
        before = env.obs.copy()
        v = env.teacher_values("search")
        assert v.shape == (8, env.num_actions) and v.dtype == np.float32
        assert (env.obs == before).all()
        for i in range(8):
            if env.phase[i] in searched:
                assert (~np.isnan(v[i]) == env.mask[i]).all(), env.text(i)
                rows += 1
            else:
                assert np.isnan(v[i]).all()
        env.step(env.teacher_actions("heuristic"))
    assert rows > 100
    with pytest.raises(ValueError, match="only the search bot"):
        env.teacher_values("heuristic")


def test_vec_env_bad_input_changes_nothing() -> None:
    env = te.VecEnv("tapp-tarock", 4, seed=9)
    obs, mask, seat = env.obs.copy(), env.mask.copy(), env.seat.copy()
    good = envs.random_actions(env, np.random.default_rng(0))
    bad = good.copy()
    bad[2] = int(np.nonzero(~env.mask[2])[0][0])
    for actions, error in [
            (bad, ValueError), (good.astype(np.float64), TypeError), (good[:3], ValueError),
            (good.reshape(2, 2), ValueError), (list(good), TypeError),
            (np.array([-1, 0, 0, 0], np.int64), ValueError),
            (np.array([2**40, 0, 0, 0], np.int64), ValueError)]:
        with pytest.raises(error):
            env.step(actions)
        assert (env.obs == obs).all() and (env.mask == mask).all() and (env.seat == seat).all()
    assert env.agent_decisions == 0
    with pytest.raises(ValueError):
        te.VecEnv("tapp-tarock", 4, seat_bots=["heuristic"] * 3)
    with pytest.raises(ValueError):
        te.VecEnv("tapp-tarock", 4, seat_bots=["agent", "nobody", "agent"])
    with pytest.raises(ValueError):
        te.VecEnv("slovenian-4p", 6, duplicate=True)
    with pytest.raises(ValueError):
        te.VecEnv("no-such-variant", 1)
    # Outputs are read-only views: writing into them is refused.
    with pytest.raises(ValueError):
        env.mask[0, 0] = True


def test_vec_env_releases_the_gil_and_refuses_a_second_thread() -> None:
    env = te.VecEnv("slovenian-4p", 256, seed=1, observation_tensor=False)
    errors: list[str] = []
    a = envs.random_actions(env, np.random.default_rng(0))

    def other() -> None:
        for _ in range(200):
            try:
                env.step(envs.random_actions(env, np.random.default_rng(1)))
            except (RuntimeError, ValueError) as e:
                errors.append(str(e))
    t = threading.Thread(target=other)
    t.start()
    for _ in range(200):
        try:
            env.step(envs.random_actions(env, np.random.default_rng(2)))
        except (RuntimeError, ValueError) as e:
            errors.append(str(e))
    t.join()
    # Every failure is a clean refusal, never a crash or a torn table.
    assert all("in use by another thread" in e or "not legal" in e for e in errors)
    assert env.mask[np.arange(256), env.legal[:, 0]].all()
    del a


@pytest.mark.parametrize("variant", ["slovenian-4p", "westfest"])
def test_records_from_a_match(variant: str, tmp_path: Path) -> None:
    record = tmp_path / "match.json"
    seats = [f"s{i}={BIN / 'tarock-bot-heuristic'}" for i in range(SEATS[variant])]
    summary = tarock_match("--variant", variant, "--hands", str(SEATS[variant]), "--seed", "5",
                           "--record", str(record), *seats)
    rec = json.loads(record.read_text())
    hands = list(records.hand_records(record))
    assert len(hands) == len(rec["deals"])
    got = list(records.decisions(record))
    assert len(got) == sum(len(h["actions"]) for h in hands)
    game = te.Game(variant, rec.get("options", {}))
    enc = te.Encoder(game)
    # Each decision is what that seat saw, and its action the recorded one.
    for d in got[:60]:
        state = records.state_at(hands[d.hand], d.k)
        assert state.current_seat == d.seat
        assert (enc.observation(state, d.seat) == d.observation).all()
        assert d.mask[d.action]
        assert game.action_text(d.action) == hands[d.hand]["actions"][d.k]
    # The scores: the hand's, for the deciding seat; they sum to the match totals.
    totals = [0] * SEATS[variant]
    for h_index, h in enumerate(hands):
        state = records.state_at(h, len(h["actions"]))
        for s, x in enumerate(state.scores):
            totals[s] += x
        for d in got:
            if d.hand == h_index:
                assert d.score == state.scores[d.seat]
    assert totals == summary["totals"] or "totals" not in summary
    mine = list(records.decisions(record, seat=1))
    assert mine and all(d.seat == 1 for d in mine)
    arr = records.arrays(record, seat=0)
    assert arr["observation"].shape[0] == len([d for d in got if d.seat == 0])
    with pytest.raises(ValueError):
        records.state_at(hands[0], len(hands[0]["actions"]) + 1)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(rec) + "\n{not json\n")
    with pytest.raises(ValueError, match="line 2"):
        list(records.hand_records(bad))


def test_vec_env_information_state_and_history() -> None:
    env = te.VecEnv("westfest", 4, seed=2, info_state=True)
    enc = te.Encoder(te.Game("westfest"))
    assert env.info_state.shape == (4, enc.info_state_size)
    rng = np.random.default_rng(3)
    for _ in range(40):
        assert (env.info_state[:, :env.observation_size] == env.obs).all()
        # Perfect recall: one history row per action so far, each one-hot seat and action.
        rows = env.info_state[:, env.observation_size:].reshape(4, enc.max_history, -1)
        filled = rows.sum(axis=2)
        assert set(np.unique(filled).tolist()) <= {0.0, 2.0}
        env.step(envs.random_actions(env, rng))
    no_tensor = te.VecEnv("westfest", 2, observation_tensor=False)
    assert no_tensor.obs is None and no_tensor.info_state is None
