"""Tests for studydb.headers: one row per header rule, plus the real study files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from studydb.headers import StudyInfo, normalise_name, read_info, start_fen
from studydb.pgn import open_pgn, read_games

CI = os.environ.get("CI", "").lower() == "true"
FEN = "8/8/8/8/8/8/1k6/K7 w - - 0 1"


def info(**kw) -> StudyInfo:
    base = dict(
        composers=(),
        stipulation=None,
        year=None,
        source=None,
        award=None,
        award_kind=None,
        award_rank=None,
    )
    base.update(kw)
    return StudyInfo(**base)


ROWS = [
    # composers
    (
        {"Composer": "Afek, Yochanan", "Composer3": "Costeff, Gady", "Composer2": "Comay, Ofer"},
        info(composers=("Afek, Yochanan", "Comay, Ofer", "Costeff, Gady")),
    ),
    (
        {"White": "Troitzky; Kubbel", "Black": "+ 0300.10", "FEN": FEN},
        info(composers=("Troitzky", "Kubbel"), stipulation="win"),
    ),
    (
        {"White": "Réti & Mandler", "Black": "=", "Result": "*"},
        info(composers=("Réti", "Mandler"), stipulation="draw"),
    ),
    (
        {"White": "Kasparyan and Gurgenidze", "Black": "?", "FEN": FEN},
        info(composers=("Kasparyan", "Gurgenidze")),
    ),
    ({"White": "Carlsen", "Black": "Nakamura", "FEN": FEN}, info()),  # players, not a study
    ({"White": "Carlsen", "Black": "Nakamura"}, info()),
    (
        {"Composer": "Rinck", "White": "Other", "Black": "+"},
        info(composers=("Rinck",), stipulation="win"),
    ),
    (
        {
            "Event": "Beautiful Chess Studies (1): Afanasyev, 1964",
            "Site": "https://lichess.org/study/iDSPaPWA",
            "Result": "*",
        },
        info(composers=("Afanasyev",), year=1964),
    ),
    (
        {"Event": "Beautiful Chess Studies (1): Capablanca/Lasker, 1914", "Result": "*"},
        info(composers=("Capablanca", "Lasker"), year=1914),
    ),
    (
        {"Event": "Studies (2): Troitzky & Kubbel, 1910 (ii)*"},
        info(composers=("Troitzky", "Kubbel"), year=1910),
    ),
    (
        {
            "Event": "Beautiful Chess Studies (1): ▶▷ INTRODUCTION ◁◀",
            "Site": "https://lichess.org/study/x",
        },
        info(),
    ),
    (
        {"Event": "R. Reti", "FEN": FEN, "White": "", "Black": "", "Date": "1921.??.??"},
        info(composers=("R. Reti",), year=1921),
    ),
    # capitals run together are an acronym, not initials: the Event is the source
    ({"Event": "USSR Championship", "FEN": FEN}, info(source="USSR Championship")),
    ({"Event": "FIDE Album", "FEN": FEN}, info(source="FIDE Album")),
    ({"Event": "BCM Cup", "FEN": FEN}, info(source="BCM Cup")),
    ({"Event": "A.Kubbel", "FEN": FEN}, info(composers=("A.Kubbel",))),
    ({"Event": "L Kubbel", "FEN": FEN}, info(composers=("L Kubbel",))),
    ({"Event": "A&K Sarychev", "FEN": FEN}, info(composers=("A. Sarychev", "K. Sarychev"))),
    (
        {"Event": "A & K Sarychev", "FEN": FEN, "White": "", "Black": ""},
        info(composers=("A. Sarychev", "K. Sarychev")),
    ),
    (  # a joint credit in a Composer tag, and HHdb's Surname=Initial list
        {"Composer": "Kubbel; Troitzky", "Composer2": "Korolkov=V Mitrofanov=L"},
        info(composers=("Kubbel", "Troitzky", "Korolkov, V.", "Mitrofanov, L.")),
    ),
    (  # a Composer tag is not split at '/'
        {"Composer": "<b>Mallory</b>"},
        info(composers=("<b>Mallory</b>",)),
    ),
    (
        {"White": "Korolkov=V Mitrofanov=L", "Black": "+ 0000.00"},
        info(composers=("Korolkov, V.", "Mitrofanov, L."), stipulation="win"),
    ),
    ({"Event": "Opposition", "FEN": FEN, "White": "", "Black": ""}, info(source="Opposition")),
    # stipulation
    ({"Stipulation": "win", "Result": "1/2-1/2"}, info(stipulation="win")),
    ({"Stipulation": " Draw "}, info(stipulation="draw")),
    ({"Stipulation": "+ "}, info(stipulation="win")),
    ({"Stipulation": "="}, info(stipulation="draw")),
    ({"Stipulation": "#3", "Result": "1-0"}, info(stipulation="mate", mate_in=3)),
    ({"Stipulation": "#8"}, info(stipulation="mate", mate_in=8)),
    ({"Stipulation": "Mate in 12"}, info(stipulation="mate", mate_in=12)),
    # the task in words, as studydb itself writes it (show, the report)
    ({"Stipulation": "White to play and win"}, info(stipulation="win")),
    ({"Stipulation": "Black to move and draw", "Result": "1-0"}, info(stipulation="draw")),
    ({"Stipulation": "White wins"}, info(stipulation="win")),
    ({"Stipulation": "White draws"}, info(stipulation="draw")),
    ({"Stipulation": "White to play and mate in 3"}, info(stipulation="mate", mate_in=3)),
    ({"Stipulation": "WTM, win"}, info(stipulation="win")),
    ({"Stipulation": "White to play"}, info()),
    ({"Stipulation": "Whitewash"}, info()),
    ({"Stipulation": "# 2 w"}, info(stipulation="mate", mate_in=2)),
    ({"Stipulation": "#"}, info(stipulation="mate")),
    ({"Stipulation": "h#2", "Result": "1-0"}, info()),
    ({"Stipulation": "s#3"}, info()),
    ({"Black": "= 0130.12"}, info(stipulation="draw")),
    ({"Result": "1-0"}, info(stipulation="win")),
    ({"Result": "1/2-1/2"}, info(stipulation="draw")),
    ({"Result": "0-1"}, info()),
    # year
    ({"Date": "1933.??.??", "Event": "x 1950"}, info(year=1933, source="x 1950")),
    ({"Date": "????.??.??", "Event": "Tidskrift 1990"}, info(year=1990, source="Tidskrift 1990")),
    # a number of five digits or more is no year (it read as its first four: 1999, 9999)
    ({"Date": "19999.01.01", "Event": "Tidskrift 1990"}, info(year=1990, source="Tidskrift 1990")),
    ({"Date": "99999"}, info()),
    (
        {"Source": "The Problemist/1 1979 EG#04807."},
        info(year=1979, source="The Problemist/1 1979", eg=(4807,)),
    ),
    (
        {"Event": "2.hm tt22#1727"},
        info(source="tt22", number="1727", award="2.hm", award_kind="hm", award_rank=2),
    ),
    ({"Event": "Moscow 1400"}, info(source="Moscow 1400")),
    # source
    (
        {"Source": "EG#14437", "Event": "1.p wa06"},
        info(source="wa06", award="1.p", award_kind="prize", award_rank=1, eg=(14437,)),
    ),
    (
        {"Event": "3.p Lenin MT 64", "Source": "EG#01335"},
        info(source="Lenin MT 64", award="3.p", award_kind="prize", award_rank=3, eg=(1335,)),
    ),
    (
        {"Source": "EG#04716.3.p Israel Ring ty 1978"},
        info(
            year=1978,
            source="Israel Ring ty 1978",
            award="3.p",
            award_kind="prize",
            award_rank=3,
            eg=(4716,),
        ),
    ),
    (
        {"Source": "EG 4716", "Event": "1.p Bohemia"},
        info(source="Bohemia", award="1.p", award_kind="prize", award_rank=1, eg=(4716,)),
    ),
    (
        {"Source": "EG#06353 EG#09212 EG#6353.", "Event": "?"},
        info(eg=(6353, 9212)),
    ),
    (
        {"Source": "The Problemist/1 1979 EG#04807.", "Event": "4.p The Problemist#241"},
        info(
            year=1979,
            source="The Problemist",
            number="241",
            award="4.p",
            award_kind="prize",
            award_rank=4,
            eg=(4807,),
        ),
    ),
    (
        {"Source": "(v): after Kubbel 1920", "Event": "1.p Bohemia"},
        info(
            source="Bohemia",
            award="1.p",
            award_kind="prize",
            award_rank=1,
            note="(v): after Kubbel 1920",
            version="version",
        ),
    ),
    (
        {"Source": "(m): Rusinek EG#12345", "Event": "Shakhmaty v SSSR 1st Prize"},
        info(
            source="Shakhmaty v SSSR",
            award="1st Prize",
            award_kind="prize",
            award_rank=1,
            eg=(12345,),
            note="(m): Rusinek EG#12345",
            version="modification",
        ),
    ),
    ({"Source": "after Troitzky"}, info(note="after Troitzky")),
    ({"Source": "Afterglow Magazine"}, info(source="Afterglow Magazine")),
    (
        {"Source": "Sachove Umenie/10", "Event": "1.p X"},
        info(source="Sachove Umenie/10", award="1.p", award_kind="prize", award_rank=1),
    ),
    ({"Source": "Legend 1.p"}, info(source="Legend 1.p")),
    ({"Event": "?"}, info()),
    ({"Event": " The Problemist "}, info(source="The Problemist")),
    # award
    ({"Award": "3rd Prize"}, info(award="3rd Prize", award_kind="prize", award_rank=3)),
    ({"Award": "special prize"}, info(award="special prize", award_kind="special")),
    (
        {"Event": "1/2.p Tidskrift 1990"},
        info(
            year=1990,
            source="Tidskrift 1990",
            award="1/2.p",
            award_kind="prize",
            award_rank=1,
        ),
    ),
    ({"Event": ".hm wl01"}, info(source="wl01", award=".hm", award_kind="hm")),
    (
        {"Event": "Hm. Kalashnikov 50 JT"},
        info(source="Kalashnikov 50 JT", award="Hm.", award_kind="hm"),
    ),
    ({"Event": ".c Zadatschy"}, info(source="Zadatschy", award=".c", award_kind="commendation")),
    # HHdb's special honourable mention and special commendation; 'HM' and 'Commend.'
    ({"Event": "sp.hm Lenin MT"}, info(source="Lenin MT", award="sp.hm", award_kind="hm")),
    (
        {"Event": "1.sp.hm Lenin MT"},
        info(source="Lenin MT", award="1.sp.hm", award_kind="hm", award_rank=1),
    ),
    (
        {"Event": "sp.c Lenin MT"},
        info(source="Lenin MT", award="sp.c", award_kind="commendation"),
    ),
    (
        {"Event": "Lenin MT 2nd-3rd HM"},
        info(source="Lenin MT", award="2nd-3rd HM", award_kind="hm", award_rank=2),
    ),
    (
        {"Event": "Lenin MT Commend."},
        info(source="Lenin MT", award="Commend.", award_kind="commendation"),
    ),
    (
        {"Event": "2.sp.p Dvoretsky-60 JT"},
        info(source="Dvoretsky-60 JT", award="2.sp.p", award_kind="special", award_rank=2),
    ),
    (
        {"Event": "2/3p. Gurgenidze-JT50"},
        info(source="Gurgenidze-JT50", award="2/3p.", award_kind="prize", award_rank=2),
    ),
    (
        {"Event": "2nd Prize, 4th Arves Jenever TT"},
        info(
            source="4th Arves Jenever TT",
            award="2nd Prize",
            award_kind="prize",
            award_rank=2,
        ),
    ),
    (
        {"Source": "Shakhmaty 1.-2. Prize"},
        info(source="Shakhmaty", award="1.-2. Prize", award_kind="prize", award_rank=1),
    ),
    (
        {"Source": "Magazine, 2nd Honourable Mention"},
        info(
            source="Magazine",
            award="2nd Honourable Mention",
            award_kind="hm",
            award_rank=2,
        ),
    ),
    (
        {"Source": "Magazine Comm."},
        info(source="Magazine", award="Comm.", award_kind="commendation"),
    ),
    (
        {"Source": "JT commendation"},
        info(source="JT", award="commendation", award_kind="commendation"),
    ),
    (
        {"Event": "lst/2nd prize Kialin 55 JT"},
        info(
            source="Kialin 55 JT",
            award="lst/2nd prize",
            award_kind="prize",
            award_rank=1,
        ),
    ),
    ({"Event": "Chessvibes 96"}, info(source="Chessvibes 96")),
    # an award alone is no source: the next rule gives it, or none does
    (
        {"Event": "2.p", "Source": "EG#01335"},
        info(award="2.p", award_kind="prize", award_rank=2, eg=(1335,)),
    ),
    ({"Event": "1st Prize"}, info(award="1st Prize", award_kind="prize", award_rank=1)),
    (
        {"Event": "3.hm", "Source": "EG#04716 Israel Ring ty 1978"},
        info(
            source="Israel Ring ty 1978",
            year=1978,
            award="3.hm",
            award_kind="hm",
            award_rank=3,
            eg=(4716,),
        ),
    ),
    ({"Source": "Comm.", "Event": "?"}, info(award="Comm.", award_kind="commendation")),
    ({"Event": "tt23 {c}"}, info(source="tt23", version="correction")),
    ({"Source": "(c): Cuppini"}, info(note="(c): Cuppini", version="correction")),
    (
        {"Source": "(c): Cuppini", "Event": "Magazine"},
        info(source="Magazine", note="(c): Cuppini", version="correction"),
    ),
    # issue 16: version flags, numbers in the source, notes inside, reprints, glued awards
    ({"Source": "64#434 {v}"}, info(source="64", number="434", version="version")),
    ({"Source": "tn21 {c}"}, info(source="tn21", version="correction")),
    (
        {"Source": "Glasgow Weekly Citizen#414 (m)"},
        info(source="Glasgow Weekly Citizen", number="414", version="modification"),
    ),
    (
        {"Event": "Deutsch Österreichische Tageszeitung {m"},
        info(source="Deutsch Österreichische Tageszeitung", version="modification"),
    ),
    (
        {"Source": "Haproblemai/3 1983 (c): Garcia=M Estudios Artisticos de Ajedrez - IV-51 2012."},
        info(
            source="Haproblemai/3 1983",
            year=1983,
            version="correction",
            note="(c): Garcia=M Estudios Artisticos de Ajedrez - IV-51 2012.",
        ),
    ),
    (
        {"Source": "EG#09206. (c): Rinck=H 1914", "Event": "Bohemia"},
        info(source="Bohemia", eg=(9206,), version="correction", note="(c): Rinck=H 1914"),
    ),
    (  # Réti's draw: the original is in Event, Source is a reprint
        {
            "Event": "Deutsch Österreichische Tageszeitung",
            "Source": "also Kagan's Neueste Schachnachrichten/4-6 1922.",
            "Date": "1921.??.??",
        },
        info(
            source="Deutsch Österreichische Tageszeitung",
            year=1921,
            reprint="Kagan's Neueste Schachnachrichten/4-6 1922",
        ),
    ),
    ({"Source": "1/2.p64"}, info(source="64", award="1/2.p", award_kind="prize", award_rank=1)),
    (
        {"Source": "EG#01969. .c Israel Ring ty 1967."},
        info(
            source="Israel Ring ty 1967",
            year=1967,
            eg=(1969,),
            award=".c",
            award_kind="commendation",
        ),
    ),
    ({"Event": "Probleemblad#162"}, info(source="Probleemblad", number="162")),
    (
        {"Event": "Shakhmatnye Okonchaniya: Ladejnye#252 ("},
        info(source="Shakhmatnye Okonchaniya: Ladejnye", number="252"),
    ),
    ({"Source": "Magazine 1.p"}, info(source="Magazine 1.p")),  # not glued: no award
    # the letters of EG and "also" in any case (each text is searched only when it has them)
    (
        {"Source": "eG 1335. ALSO Schach  1950", "Event": "Tidskrift"},
        info(source="Tidskrift", year=1950, eg=(1335,), reprint="Schach  1950"),
    ),
    (
        {"Source": "al\u017fo Kagan 1922", "Event": "Bohemia {v}"},  # a long s: \u017f
        info(source="Bohemia", year=1922, version="version", reprint="Kagan 1922"),
    ),
    (
        {
            "Composer2": "Comay, Ofer",
            "Composer1": "Afek, Yochanan",
            "Composer": "?",
            "Event": "2nd Prize Eg#7 Magazine",
        },
        info(
            composers=("Afek, Yochanan", "Comay, Ofer"),
            source="Magazine",
            award="2nd Prize",
            award_kind="prize",
            award_rank=2,
            eg=(7,),
        ),
    ),
]


@pytest.mark.parametrize(("headers", "expected"), ROWS)
def test_read_info(headers, expected):
    assert read_info(headers) == expected


@pytest.mark.parametrize(
    ("name", "folded"),
    [
        ("Réti, Richard", "reti, richard"),
        ("  Kasparyan,\tGenrikh  ", "kasparyan, genrikh"),
        ("Øbro", "obro"),
        ("Weiß", "weiss"),
        ("Łukasz Żółw", "lukasz zolw"),
        ("Đurašević", "durasevic"),
        ("PROKEŠ", "prokes"),
        ("Ærø", "aero"),
        ("Ｆｕｌｌｗｉｄｔｈ", "fullwidth"),
    ],
)
def test_normalise_name(name, folded):
    assert normalise_name(name) == folded


def test_start_fen():
    assert start_fen({"FEN": f"  {FEN} ", "SetUp": "1"}) == FEN
    assert start_fen({"FEN": FEN}) == FEN
    assert start_fen({"Event": "x"}) is None
    assert start_fen({"FEN": " "}) is None


def read_corpus(corpus_dir: Path, name: str) -> list[StudyInfo]:
    path = corpus_dir / "studies" / name
    with open_pgn(path) as stream:
        return [read_info(g.headers) for g in read_games(stream, name=name)]


def test_keymove_files(corpus_dir: Path):
    infos = read_corpus(corpus_dir, "Afek, Yochanan.partial.pgn")
    assert all(i.composers[0] == "Afek, Yochanan" for i in infos)
    assert all(i.stipulation in ("win", "draw") and i.year for i in infos)
    shared = next(i for i in infos if len(i.composers) == 3)
    assert shared.composers == ("Afek, Yochanan", "Comay, Ofer", "Costeff, Gady")
    assert (shared.source, shared.award, shared.award_rank, shared.eg) == (
        "Uralski Problemist ty Haldiki {tt",
        "1/2.p",
        1,
        (14437,),
    )
    kinds = {i.award_kind for i in infos}
    assert kinds == {"prize", "hm", "commendation", "special", None}
    for name in (
        "Bazlov, Yuri Vasilyevich.partial.pgn",
        "Averbakh, Yuri Lvovich.pgn",
        "Alekhine, Alexander Alexandrovich.pgn",
    ):
        for i in read_corpus(corpus_dir, name):
            assert i.composers and i.stipulation and i.year, (name, i)


def test_lichess_files(corpus_dir: Path):
    for name in (
        "lichess_study_beautiful-chess-studies-1_by_thijscom_2018.03.05.pgn",
        "lichess_study_beautiful-chess-studies-2_by_thijscom_2018.04.17.pgn",
    ):
        infos = read_corpus(corpus_dir, name)
        assert infos[0] == info()  # the introduction chapter
        for i in infos[1:]:
            assert i.composers and 1800 < i.year < 2000 + 20 and i.source is None, i


def test_endgame_selection(corpus_dir: Path):
    infos = read_corpus(corpus_dir, "Endgame Selection.pgn")
    composers = [i.composers for i in infos if i.composers]
    assert composers == [("J. Moravec",), ("R. Reti",), ("A. Sarychev", "K. Sarychev")]
    reti = next(i for i in infos if i.composers == ("R. Reti",))
    assert (reti.year, reti.stipulation, reti.source) == (1921, "draw", None)


@pytest.mark.parametrize(
    ("name", "event", "expected"),
    [
        ("Afek, Yochanan.partial.pgn", "3.p Lenin MT", ("Lenin MT", "3.p", (), None)),
        (
            "Afek, Yochanan.partial.pgn",
            "4.p The Problemist#241",
            ("The Problemist", "4.p", (4807,), None),
        ),
        (
            "Afek, Yochanan.partial.pgn",
            "2nd Prize, 4th Arves Jenever TT",
            ("4th Arves Jenever TT", "2nd Prize", (), None),
        ),
        (
            "Bazlov, Yuri Vasilyevich.partial.pgn",
            "2.p ma04 tm02",
            ("ma04 tm02", "2.p", (6353, 9212), None),
        ),
        (
            "Bazlov, Yuri Vasilyevich.partial.pgn",
            "ts04#5767",
            ("Sachove Umenie/10", None, (), None),
        ),
        (
            "Averbakh, Yuri Lvovich.pgn",
            "Okonchaniya - Kon protiv Slona, Ladejni",
            (
                "Okonchaniya - Kon protiv Slona, Ladejni",
                None,
                (),
                "(c): Cuppini=A Best Problems=42 3-4/2007.",
            ),
        ),
    ],
)
def test_real_study_sources(corpus_dir: Path, name: str, event: str, expected: tuple) -> None:
    path = corpus_dir / "studies" / name
    with open_pgn(path) as stream:
        (game,) = [g for g in read_games(stream, name=name) if g.headers.get("Event") == event]
    i = read_info(game.headers)
    assert (i.source, i.award, i.eg, i.note) == expected


def test_no_real_source_is_an_eg_reference_or_a_note(corpus_dir: Path) -> None:
    for path in sorted((corpus_dir / "studies").glob("*.pgn")):
        for i in read_corpus(corpus_dir, path.name):
            assert i.source is None or ("EG#" not in i.source and "(c):" not in i.source), i


def test_games_sharing_event_and_source_keep_their_own_date_award_and_chapter() -> None:
    """What Event and Source say is worked out once for the games sharing them; the
    tags read with them (Award, a lichess chapter, a composer read from Event) and the
    Date still decide for each game."""
    event = {"Event": "2.p Shakhmaty v SSSR 1964", "Source": "EG#01335"}
    plain = read_info(event)
    assert (plain.year, plain.award_kind, plain.award_rank, plain.eg) == (1964, "prize", 2, (1335,))
    assert read_info({**event, "Date": "1966.??.??"}).year == 1966
    assert read_info(event).year == 1964
    awarded = read_info({**event, "Award": "1st Prize"})
    assert (awarded.award, awarded.award_rank) == ("1st Prize", 1)
    assert read_info(event).award_rank == 2
    person = {"Event": "R. Reti", "FEN": "8/8/8/8/8/8/8/K1k5 w - - 0 1"}
    assert read_info(person).source is None  # Event read as the composer
    assert read_info({**person, "White": "Reti", "Black": "Ed"}).source == "R. Reti"
