"""Model files (agents.policy_file): saving and loading never runs code from the file; files that
do not fit their metadata get one-line errors; the rebuilt policy plays exactly as SB3's."""

from __future__ import annotations

import base64
import io
import json
import pickle
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import torch
from sb3_contrib import MaskablePPO

import agents
from agents import shipped
from agents.policy_file import (
    METADATA_MEMBER,
    ModelFileError,
    load_into,
    read_metadata,
    save_policy,
    upgrade,
)
from agents.ppo import load_agent
from camelup_env.envs.single_agent import SingleAgentEnv
from camelup_env.game.rules import RuleSet
from camelup_env.match import play_game

RULES = RuleSet("classic", num_players=2)
OBSERVER = {"odds_features": False, "race_samples": 200, "action_values": True}
ROOT = Path(__file__).resolve().parents[1]


class Payload:
    """Unpickling this creates ``marker`` (``open(marker, "w")``): a stand-in for any code."""

    def __init__(self, marker: Path):
        self.marker = str(marker)

    def __reduce__(self):
        return open, (self.marker, "w")


def tiny_model(net_arch=(16,), seed: int = 0) -> MaskablePPO:
    torch.set_num_threads(1)
    env = SingleAgentEnv(num_players=2, odds_features=False)
    return MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=64,
        batch_size=32,
        seed=seed,
        device="cpu",
        policy_kwargs={"net_arch": list(net_arch)},
    )


def rewrite(path: Path, target: Path, **members: bytes | str) -> Path:
    """A copy of zip ``path`` with ``members`` replaced or added."""
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(target, "w") as dst:
        for name in src.namelist():
            if name not in members:
                dst.writestr(name, src.read(name))
        for name, data in members.items():
            dst.writestr(name, data)
    return target


def sb3_zip_with_payload(tmp_path: Path, marker: Path) -> Path:
    """An SB3 zip as the old ``camelup train`` wrote it (camelup.json version 1), whose ``data``
    and ``pytorch_variables.pth`` both carry a payload that SB3's loader unpickles."""
    model = tiny_model()
    plain = tmp_path / "sb3.zip"
    model.save(plain)
    data = json.loads(zipfile.ZipFile(plain).read("data"))
    data["policy_kwargs"] = {
        ":type:": "<class 'dict'>",
        ":serialized:": base64.b64encode(pickle.dumps(Payload(marker))).decode(),
    }
    variables = io.BytesIO()
    torch.save({"payload": Payload(marker)}, variables)
    meta = {
        "format": "camelup-maskable-ppo",
        "version": 1,
        "rules": RULES.to_dict(),
        "observer": OBSERVER,
        "trained_steps": 0,
    }
    return rewrite(
        plain,
        tmp_path / "crafted.zip",
        data=json.dumps(data),
        **{"pytorch_variables.pth": variables.getvalue(), METADATA_MEMBER: json.dumps(meta)},
    )


def test_a_crafted_model_file_runs_nothing_when_loaded(tmp_path) -> None:
    marker = tmp_path / "pwned"
    crafted = sb3_zip_with_payload(tmp_path, marker)
    # The payload is live: SB3's own loader runs it.
    with pytest.raises(Exception):  # noqa: B017 - the fake policy_kwargs break SB3 afterwards
        MaskablePPO.load(crafted, device="cpu")
    assert marker.exists()
    marker.unlink()
    # camelup's loader reads only camelup.json and policy.pth: nothing runs, and it plays.
    agent = agents.make(f"ppo:{crafted}")
    result = play_game(RULES, [agent, agents.make("random")], seed=0, catch=False)
    assert result.forfeit is None
    upgraded = upgrade(crafted, tmp_path / "upgraded.zip")
    assert read_metadata(upgraded)["version"] == 2
    assert "data" not in zipfile.ZipFile(upgraded).namelist()
    # A payload in the tensors themselves is refused by torch's weights-only reader.
    weights = io.BytesIO()
    torch.save({"action_net.weight": Payload(marker)}, weights)
    bad = rewrite(upgraded, tmp_path / "bad.zip", **{"policy.pth": weights.getvalue()})
    with pytest.raises(ModelFileError, match=r"policy\.pth is not a plain tensor file"):
        agents.make(f"ppo:{bad}")
    assert not marker.exists()


def test_weights_that_do_not_fit_their_metadata_get_one_line_errors(tmp_path) -> None:
    good = save_policy(
        tiny_model(), tmp_path / "good", RULES, observer=OBSERVER, env_version="camelup_v0"
    )
    assert good.name == "good.zip"
    meta = read_metadata(good)
    other = save_policy(
        tiny_model(net_arch=(32,)),
        tmp_path / "other.zip",
        RULES,
        observer=OBSERVER,
        env_version="camelup_v0",
    )
    nan = {k: v.clone() for k, v in tiny_model().policy.state_dict().items()}
    nan["action_net.bias"][0] = float("nan")
    nan_bytes = io.BytesIO()
    torch.save(nan, nan_bytes)

    def with_meta(**changes) -> dict[str, str]:
        doc = json.loads(json.dumps(meta))
        for dotted, value in changes.items():
            *parents, key = dotted.split("__")
            node = doc
            for p in parents:
                node = node[p]
            node[key] = value
        return {METADATA_MEMBER: json.dumps(doc)}

    cases = [
        (
            {"policy.pth": zipfile.ZipFile(other).read("policy.pth")},
            r"weights do not fit the recorded architecture \(mlp_extractor.policy_net.0.weight",
        ),
        (
            with_meta(policy__net_arch={"pi": [8], "vf": [16]}),
            "weights do not fit the recorded architecture",
        ),
        (
            with_meta(policy__net_arch={"pi": [4096, 4096], "vf": [16]}),
            "architecture needs .* weights but policy.pth holds",
        ),
        (
            with_meta(observer={"odds_features": True, "race_samples": 200}),
            "the policy takes .* features but its recorded observer settings give",
        ),
        (
            with_meta(observer={"odds_features": "yes", "race_samples": 200}),
            "odds_features must be bool",
        ),
        (
            with_meta(rules={"preset": "classic", "num_players": 4}),
            "features but its recorded observer settings",
        ),
        (with_meta(policy__activation="os.system"), "activation must be one of"),
        (with_meta(version=3), "model file version 3"),
        ({"policy.pth": nan_bytes.getvalue()}, "action_net.bias' is not a finite float tensor"),
        ({"policy.pth": b"garbage"}, "policy.pth is not a plain tensor file"),
        ({METADATA_MEMBER: "[" * 100_000 + "]" * 100_000}, "nests 100000 levels deep"),
        ({METADATA_MEMBER: '{"version": 1' + "0" * 50 + "}"}, "integer of 51 digits"),
    ]
    for i, (members, message) in enumerate(cases):
        broken = rewrite(good, tmp_path / f"broken{i}.zip", **members)
        with pytest.raises(ModelFileError, match=message) as info:
            load_agent(broken)
        assert "\n" not in str(info.value) and str(broken) in str(info.value)


def test_the_rebuilt_policy_acts_as_sb3_predicts(tmp_path) -> None:
    """Oracle: deterministic actions equal SB3's own ``predict``; sampled ones follow the masked
    policy's probabilities, are always legal, and repeat with the same seed."""
    model = tiny_model(net_arch=(32, 32), seed=3)
    with torch.no_grad():  # move the weights off their initialisation, so ties are unlikely
        for p in model.policy.parameters():
            p.add_(torch.randn_like(p) * 0.5)
    path = save_policy(
        model, tmp_path / "m.zip", RULES, observer=OBSERVER, env_version="camelup_v0"
    )
    agent = load_agent(path)
    rng = np.random.default_rng(0)
    obs = rng.random((64, agent.observer.size), dtype=np.float32)
    masks = rng.random((64, 46)) < 0.3
    masks[np.arange(64), rng.integers(46, size=64)] = True
    expected, _ = model.predict(obs, action_masks=masks, deterministic=True)
    assert np.array_equal(agent.act_batch(obs, masks), expected)
    with torch.no_grad():  # the raw logits are the distribution's, shifted per row
        normalised = model.policy.get_distribution(torch.as_tensor(obs)).distribution.logits
    shift = agent.logits(obs) - normalised.numpy()
    assert np.allclose(shift, shift[:, :1], atol=1e-5) and np.ptp(shift[:, 0]) > 0
    sampled = agent.act_batch(
        np.repeat(obs[:1], 4000, 0), np.repeat(masks[:1], 4000, 0), deterministic=False, rng_seed=1
    )
    assert masks[0, sampled].all()
    assert np.array_equal(
        sampled,
        agent.act_batch(
            np.repeat(obs[:1], 4000, 0),
            np.repeat(masks[:1], 4000, 0),
            deterministic=False,
            rng_seed=1,
        ),
    )
    with torch.no_grad():
        probs = model.policy.get_distribution(
            torch.as_tensor(obs[:1]), action_masks=masks[:1]
        ).distribution.probs[0]
    freq = np.bincount(sampled, minlength=46) / len(sampled)
    assert np.abs(freq - probs.numpy()).max() < 0.05  # 4000 draws: sd of a share <= 0.008
    with pytest.raises(ValueError, match="at least one legal action"):
        agent.act_batch(obs[:2], np.zeros((2, 46), dtype=bool))


def test_load_into_restores_weights_optimizer_and_counters(tmp_path) -> None:
    model = tiny_model()
    model.num_timesteps, model._n_updates = 1234, 7
    loss = sum(p.sum() for p in model.policy.parameters())
    loss.backward()
    model.policy.optimizer.step()  # an Adam state to carry over
    path = save_policy(
        model,
        tmp_path / "ckpt",
        RULES,
        observer=OBSERVER,
        env_version="camelup_v0",
        trained_steps=1234,
    )
    fresh = tiny_model(seed=9)
    meta = load_into(fresh, path)
    assert meta["trained_steps"] == 1234 and meta["training"]["num_timesteps"] == 1234
    assert (fresh.num_timesteps, fresh._n_updates) == (1234, 7)
    for key, value in model.policy.state_dict().items():
        assert torch.equal(fresh.policy.state_dict()[key], value)
    saved, loaded = model.policy.optimizer.state_dict(), fresh.policy.optimizer.state_dict()
    assert saved["param_groups"] == loaded["param_groups"]
    for i, state in saved["state"].items():
        assert all(torch.equal(v, loaded["state"][i][k]) for k, v in state.items())
    with pytest.raises(ModelFileError, match="is not the model's"):
        load_into(tiny_model(net_arch=(8,)), path)


def test_save_policy_refuses_what_it_cannot_record(tmp_path) -> None:
    model = tiny_model()
    with pytest.raises(ValueError, match="reserved key"):
        save_policy(
            model,
            tmp_path / "m",
            RULES,
            observer=OBSERVER,
            env_version="v",
            policy={"class": "Evil"},
        )
    with pytest.raises(ValueError, match=r"the policy takes .* features"):
        save_policy(
            model,
            tmp_path / "m",
            RULES,
            env_version="camelup_v0",
            observer={"odds_features": True, "race_samples": 200},
        )
    with pytest.raises(ValueError, match="unknown setting"):
        save_policy(
            model,
            tmp_path / "m",
            RULES,
            env_version="camelup_v0",
            observer={**OBSERVER, "colour_blind": True},
        )
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("name", ["classic2", "classic2_iterated", "classic4", "second4"])
def test_shipped_models_are_tensor_only_files(name: str) -> None:
    path = shipped.model_path(name)
    assert sorted(zipfile.ZipFile(path).namelist()) == [METADATA_MEMBER, "policy.pth"]
    meta = read_metadata(path)
    assert meta["version"] == 2 and meta["policy"]["net_arch"] == {
        "pi": [256, 256],
        "vf": [256, 256],
    }


def test_a_model_trained_outside_camelup_train_is_made_playable_in_one_line(tmp_path) -> None:
    """docs/model-files.md: the README's own MaskablePPO block (default network, the env's own
    observer), then one save_policy call by the model's author, then ``ppo:`` plays it."""
    torch.set_num_threads(1)
    env = SingleAgentEnv(num_players=2, learner_seat=None, odds_features=False)
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, verbose=0, device="cpu")
    model.learn(total_timesteps=64)
    save_policy(
        model, tmp_path / "mine.zip", env.rules, observer=env.observer, env_version="camelup_v0"
    )
    agent = agents.make(f"ppo:{tmp_path / 'mine.zip'}")
    assert agent.observer.size == env.observation_space.shape[0]
    result = play_game(RULES, [agents.make("random"), agent], seed=1, catch=False)
    assert result.forfeit is None and not result.truncated


def test_damaged_model_files_raise_only_model_file_errors(tmp_path) -> None:
    """Random byte changes and truncations of a whole file, or of its policy.pth: each either
    loads or is refused with a one-line ModelFileError (zlib, zip and torch errors included)."""
    good = save_policy(
        tiny_model(), tmp_path / "good.zip", RULES, observer=OBSERVER, env_version="camelup_v0"
    )
    sources = {"file": good.read_bytes(), "policy.pth": zipfile.ZipFile(good).read("policy.pth")}
    rng = np.random.default_rng(0)
    refused = 0
    for i in range(120):
        kind = ("file", "policy.pth")[i % 2]
        data = bytearray(sources[kind])
        for at in rng.integers(len(data), size=int(rng.integers(1, 9))):
            data[at] = int(rng.integers(256))
        if i % 5 == 0:
            data = data[: int(rng.integers(len(data)))]
        damaged = tmp_path / f"damaged{i}.zip"
        if kind == "file":
            damaged.write_bytes(bytes(data))
        else:
            rewrite(good, damaged, **{"policy.pth": bytes(data)})
        try:
            load_agent(damaged)
        except ModelFileError as exc:
            refused += 1
            assert "\n" not in str(exc)
    assert refused >= 30  # the damage is real: many files are refused


def test_the_registry_says_which_specs_play_a_model_file(tmp_path) -> None:
    import argparse

    from agents.rllib import POLICY_FILE
    from tournament.evaluate import _rules

    classic4 = shipped.model_path("classic4")
    checkpoint = tmp_path / "checkpoint"
    checkpoint.mkdir()
    shutil.copy(classic4, checkpoint / POLICY_FILE)
    assert agents.model_file(f"ppo:{classic4}") == classic4
    assert agents.model_file(f"search:{classic4}") == classic4
    # a shipped model by its name, from any folder (the package's file)
    assert agents.model_file("ppo:classic4") == classic4 == agents.model_file("rollout:classic4")
    assert agents.model_file(f"rllib:{checkpoint}") == checkpoint / POLICY_FILE
    assert agents.model_file("greedy") is None
    assert agents.model_file("py:agents.random_agent:RandomAgent") is None
    # camelup evaluate sets up the game the file records, whichever prefix plays it
    for spec in ("ppo:classic4", f"rllib:{checkpoint}"):
        rules = _rules(argparse.Namespace(candidate=spec, preset=None, players=None))
        assert (rules.preset, rules.num_players) == ("classic", 4)


def test_a_former_or_unknown_shipped_name_says_what_to_name(tmp_path, monkeypatch) -> None:
    """A spec of the shipped files' former place (results/models/NAME/model.zip) names the
    model to use instead; a bare word that is no shipped name lists the names."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ModelFileError, match=r"name it 'greedy_classic4', as in ppo:greedy_"):
        agents.make("ppo:results/models/distilled/greedy_classic4/model.zip")
    with pytest.raises(ModelFileError, match=r"nor a shipped model's name \(classic2, "):
        agents.make("ppo:classic9")
    assert agents.make("ppo:classic2").source == str(shipped.model_path("classic2"))
