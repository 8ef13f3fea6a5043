"""scanner.ocr.crossval's reuse of the models an earlier run kept (no training, no photos needed)."""
import pytest

from scanner.ocr import crossval


def test_reuse_needs_every_saved_model(tmp_path):
    (tmp_path / "fonts.npz").write_bytes(b"")
    (tmp_path / "fold0.npz").write_bytes(b"")
    with pytest.raises(FileNotFoundError, match="fold1.npz"):
        crossval.saved_models(tmp_path / "photos", 2, tmp_path)


def test_reuse_needs_a_models_folder(tmp_path, capsys):
    (tmp_path / "outlines.csv").write_text("")
    with pytest.raises(SystemExit):
        crossval.main(["--data", str(tmp_path), "--reuse"])
    assert "--reuse needs --models" in capsys.readouterr().err
