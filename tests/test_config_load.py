"""okfpro.toml as io/config.load reads it: tomllib's answer, or its error as a ConfigError."""

from __future__ import annotations

from pathlib import Path

from okfpro.io.config import load


def test_tomllib_reads_okfpro_toml_and_its_error_is_the_answer(tmp_path: Path) -> None:
    (tmp_path / "okfpro.toml").write_text('[memory]\nroot = "mem"\n[identity]\nuser = "\\u0061lice"\n'
                                          "when = 1979-05-27\n", encoding="utf-8")
    cfg = load(tmp_path)
    assert cfg.get("identity", "user") == "alice" and cfg.get("memory", "root") == "mem"
    assert str(cfg.get("identity", "when")) == "1979-05-27"
    (tmp_path / "okfpro.toml").write_text('[memory]\nroot = "a"\nroot = "b"\n', encoding="utf-8")
    try:
        load(tmp_path)
    except ValueError as exc:
        assert "not valid TOML" in str(exc)
    else:
        raise AssertionError("a duplicate key was read")
