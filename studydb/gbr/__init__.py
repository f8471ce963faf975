"""GBR (Guy-Blandford-Roycroft) codec: material codes of endgame studies.

Pure: depends on :mod:`chess` only (imported lazily, so that code lookups
start fast).

>>> from studydb import gbr
>>> gbr.encode("8/8/1KP5/3r4/8/8/8/k7 w - - 0 1")
'0300.10'
>>> gbr.parse("0300.10").signature
'KPvKR'
"""

from studydb.gbr.codec import (
    PIECE_TYPES,
    UNKNOWN_MARK,
    Counts,
    GbrError,
    Material,
    encode,
    expand_placement,
    material,
    material_from_counts,
    material_from_expanded,
    parse,
    parse_signature,
)
from studydb.gbr.extended import (
    Extended,
    StipulationForm,
    decode_extended,
    encode_extended,
    encode_stipulation_form,
    normalise_stipulation,
    parse_extended,
    parse_stipulation_form,
)
from studydb.gbr.pattern import Pattern, compile_pattern, flip_pattern, matches
from studydb.gbr.signature import looks_like_material, read_material, to_signature

__all__ = [
    "PIECE_TYPES",
    "UNKNOWN_MARK",
    "Counts",
    "Extended",
    "GbrError",
    "Material",
    "Pattern",
    "StipulationForm",
    "compile_pattern",
    "decode_extended",
    "encode",
    "encode_extended",
    "encode_stipulation_form",
    "expand_placement",
    "flip_pattern",
    "looks_like_material",
    "matches",
    "material",
    "material_from_counts",
    "material_from_expanded",
    "normalise_stipulation",
    "parse",
    "parse_extended",
    "parse_signature",
    "parse_stipulation_form",
    "read_material",
    "to_signature",
]
