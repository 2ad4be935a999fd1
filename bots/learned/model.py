"""The learned bot's network: a small multilayer perceptron in plain numpy
(Debian's python3-numpy; nothing else), from the observation tensor of
tarock_engine (encoding version in the weights file) to one logit per action
of the variant's fixed action space, masked to the legal actions.

Weights are one .npz file: W1, b1, W2, b2, W3, b3 (stored as float16, computed in
float32: half the upload), and the metadata
variant, encoding_version, observation_size, num_actions. load() checks them
all and raises ValueError naming what does not fit: a model file that does not
load is one clear error, never a bot that plays garbage."""

from __future__ import annotations

import numpy as np

KEYS = ("W1", "b1", "W2", "b2", "W3", "b3")


class Model:
    def __init__(self, obs_size: int, num_actions: int, hidden: int = 256, seed: int = 0,
                 variant: str = "", encoding_version: int = 0) -> None:
        rng = np.random.default_rng(seed)
        def layer(i: int, o: int):
            return (rng.standard_normal((i, o)) * np.sqrt(2.0 / i)).astype(np.float32), \
                np.zeros(o, np.float32)
        self.W1, self.b1 = layer(obs_size, hidden)
        self.W2, self.b2 = layer(hidden, hidden)
        self.W3, self.b3 = layer(hidden, num_actions)
        self.W3 *= 0.1
        self.variant = variant
        self.encoding_version = encoding_version

    @property
    def params(self):
        return [getattr(self, k) for k in KEYS]

    def forward(self, x: np.ndarray):
        h1 = np.maximum(x @ self.W1 + self.b1, 0)
        h2 = np.maximum(h1 @ self.W2 + self.b2, 0)
        return h2 @ self.W3 + self.b3, (x, h1, h2)

    def logits(self, x: np.ndarray) -> np.ndarray:
        return self.forward(x)[0]

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The legal action with the highest logit, per row (int32)."""
        z = np.where(mask, self.logits(obs), -np.inf)
        return z.argmax(axis=1).astype(np.int32)

    def grads(self, cache, dlogits: np.ndarray):
        x, h1, h2 = cache
        gW3 = h2.T @ dlogits
        gb3 = dlogits.sum(0)
        d2 = (dlogits @ self.W3.T) * (h2 > 0)
        gW2 = h1.T @ d2
        gb2 = d2.sum(0)
        d1 = (d2 @ self.W2.T) * (h1 > 0)
        gW1 = x.T @ d1
        gb1 = d1.sum(0)
        return [gW1, gb1, gW2, gb2, gW3, gb3]

    def save(self, path: str) -> None:
        np.savez_compressed(path, **{k: getattr(self, k).astype(np.float16) for k in KEYS},
                            variant=np.array(self.variant),
                            encoding_version=np.array(self.encoding_version),
                            observation_size=np.array(self.W1.shape[0]),
                            num_actions=np.array(self.W3.shape[1]))


def load(path: str, variant: str, encoding_version: int, obs_size: int,
         num_actions: int) -> Model:
    """The model in `path`, checked against the game it must play."""
    try:
        z = np.load(path, allow_pickle=False)
        arrays = {k: z[k].astype(np.float32) for k in KEYS}
        meta = {k: z[k].item() for k in ("variant", "encoding_version", "observation_size",
                                          "num_actions")}
    except Exception as e:  # noqa: BLE001 - any unreadable file is one error
        raise ValueError(f"model file {path}: does not load: {e}") from None
    want = {"variant": variant, "encoding_version": encoding_version,
            "observation_size": obs_size, "num_actions": num_actions}
    for k, v in want.items():
        if meta[k] != v:
            raise ValueError(f"model file {path}: {k} is {meta[k]!r}, this game needs {v!r}")
    shapes = {"W1": (obs_size, None), "W3": (None, num_actions)}
    for k, (r, c) in shapes.items():
        if (r is not None and arrays[k].shape[0] != r) or (c is not None and arrays[k].shape[1] != c):
            raise ValueError(f"model file {path}: {k} has shape {arrays[k].shape}")
    m = Model.__new__(Model)
    for k in KEYS:
        setattr(m, k, arrays[k])
    if m.W1.shape[1] != m.W2.shape[0] or m.W2.shape[1] != m.W3.shape[0]:
        raise ValueError(f"model file {path}: the layers do not chain")
    for k in KEYS:
        if not np.all(np.isfinite(getattr(m, k))):
            raise ValueError(f"model file {path}: {k} is not finite")
    m.variant, m.encoding_version = variant, encoding_version
    return m
