"""The one writer of the commands' results (studydb.cli.output)."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from studydb.cli import output
from studydb.cli.output import RecordWriter, write_json, write_records

RECORDS = [{"id": 1, "name": "Réti"}, {"id": 2, "moves": ["Kc7", "h5"]}]
CLI = Path(output.__file__).parent


def written(capsys: pytest.CaptureFixture[str], writer: RecordWriter[object]) -> str:
    for record in RECORDS:
        writer.write(record)
    writer.close()
    return capsys.readouterr().out


def test_jsonl_is_one_object_a_line(capsys: pytest.CaptureFixture[str]) -> None:
    out = written(capsys, RecordWriter("jsonl", chunk=1000))
    assert out == "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in RECORDS)


def test_json_document_is_one_dumps_of_the_list(capsys: pytest.CaptureFixture[str]) -> None:
    out = written(capsys, RecordWriter("json", indent=2))
    assert out == json.dumps(RECORDS, ensure_ascii=False, indent=2) + "\n"


def test_json_lines_layout_streams_one_item_a_line(capsys: pytest.CaptureFixture[str]) -> None:
    out = written(capsys, RecordWriter("json", layout="lines"))
    assert out == '[{"id": 1, "name": "Réti"}\n,{"id": 2, "moves": ["Kc7", "h5"]}\n]\n'
    assert json.loads(out) == RECORDS


def test_json_indented_layout_puts_each_item_on_its_own_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = written(capsys, RecordWriter("json", layout="indented"))
    assert out == '[\n  {"id": 1, "name": "Réti"},\n  {"id": 2, "moves": ["Kc7", "h5"]}\n]\n'
    assert json.loads(out) == RECORDS


@pytest.mark.parametrize("layout", output.LAYOUTS)
def test_an_empty_json_array_is_brackets(
    capsys: pytest.CaptureFixture[str], layout: output.Layout
) -> None:
    RecordWriter("json", layout=layout).close()
    assert capsys.readouterr().out == "[]\n"


def test_text_lines_show_control_characters_as_escapes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    writer: RecordWriter[dict[str, str]] = RecordWriter("text", text=lambda r: r["name"])
    writer.write({"name": "evil\x1b]0;title\x07"})
    writer.close()
    assert "\x1b" not in capsys.readouterr().out


def test_a_text_printer_gets_the_whole_list(capsys: pytest.CaptureFixture[str]) -> None:
    seen: list[list[object]] = []
    write_records("table", iter(RECORDS), print_text=seen.append)
    assert seen == [RECORDS] and capsys.readouterr().out == ""


def test_write_json_keeps_non_ascii_unless_asked(capsys: pytest.CaptureFixture[str]) -> None:
    write_json({"name": "Réti"})
    write_json({"name": "Réti"}, ascii=True)
    assert capsys.readouterr().out == '{"name": "Réti"}\n{"name": "R\\u00e9ti"}\n'


def test_an_unknown_layout_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown layout"):
        RecordWriter("json", layout="pretty")  # type: ignore[arg-type]


def test_no_command_module_writes_json_itself() -> None:
    """Every command's JSON goes through cli.output: no json.dumps or json.dump elsewhere."""
    writers = {
        f"{path.name}:{node.lineno}"
        for path in CLI.glob("*.py")
        if path.name != "output.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Attribute)
        and node.attr in ("dumps", "dump")
        and isinstance(node.value, ast.Name)
        and node.value.id == "json"
    }
    assert writers == set()
