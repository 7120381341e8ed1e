"""Ruleset versions and the ranges conformance cases select them with: exact, caret, comparators, and refusals."""

from __future__ import annotations

import pytest

from vitou_ref.rules.versions import concrete_names, parse_range, parse_ref, parse_version, version_key


def admits(rng: str, version: str) -> bool:
    return parse_range(rng).admits(parse_version(version))


def test_versions_compare_as_integer_triples() -> None:
    # A string comparison puts 1.10.0 before 1.9.0: the latest ruleset, and
    # every range bound, would then be wrong from the tenth minor version on.
    assert parse_version("1.10.0") == (1, 10, 0)
    assert version_key("1.10.0") > version_key("1.9.0") > version_key("1.0.12") > version_key("1.0.2")
    assert sorted(["1.10.0", "1.9.0", "2.0.0", "1.0.0"], key=version_key) == ["1.0.0", "1.9.0", "1.10.0", "2.0.0"]
    assert admits(">1.9.0", "1.10.0") and not admits("<1.9.0", "1.10.0")


def test_an_exact_version_admits_that_version_only() -> None:
    # vitou/1.0.0 in a case keeps meaning exactly what it meant before ranges
    # existed: the fuzzer's saved fixtures and the club's cases rely on it.
    assert admits("1.0.0", "1.0.0") and admits("=1.0.0", "1.0.0")
    assert not admits("1.0.0", "1.0.1") and not admits("1.0.0", "1.1.0") and not admits("1.0.0", "0.9.9")
    assert parse_range("1.0.0").exact == (1, 0, 0) and parse_range("^1.0.0").exact is None


def test_a_caret_admits_everything_up_to_the_next_major_version() -> None:
    # The point of ranges: a case written for ^1.0.0 applies to 1.1.0 and
    # 1.0.5 without an edit, and stops at 2.0.0, where the rules may change.
    for v in ("1.2.0", "1.2.9", "1.3.0", "1.99.99"):
        assert admits("^1.2.0", v), v
    for v in ("1.1.9", "2.0.0", "0.9.0", "3.0.0"):
        assert not admits("^1.2.0", v), v
    # npm's caret below 1.0.0: the left-most non-zero number is fixed.
    assert admits("^0.2.3", "0.2.9") and not admits("^0.2.3", "0.3.0")
    assert admits("^0.0.3", "0.0.3") and not admits("^0.0.3", "0.0.4")


def test_comparators_must_all_hold() -> None:
    # A case pinned to the 1.0 line (>=1.0.0 <1.1.0) must not run on 1.1.0,
    # whose rules it was not derived from.
    assert admits(">=1.0.0 <1.1.0", "1.0.0") and admits(">=1.0.0 <1.1.0", "1.0.7")
    assert not admits(">=1.0.0 <1.1.0", "1.1.0") and not admits(">=1.0.0 <1.1.0", "0.9.0")
    assert admits(">1.0.0", "1.0.1") and not admits(">1.0.0", "1.0.0")
    assert admits("<=1.1.0", "1.1.0") and not admits("<=1.1.0", "1.1.1")
    assert admits(">=1.0.0 <=1.0.0", "1.0.0") and admits("=1.1.0 >=1.0.0", "1.1.0")


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "empty"),
        ("1.0", "MAJOR.MINOR.PATCH"),
        ("latest", "not a comparator"),
        ("~1.0.0", "not a comparator"),
        ("1.x", "MAJOR.MINOR.PATCH"),
        ("01.0.0", "leading zeros"),
        ("1.0.0-beta", "pre-release"),
        ("^1.0.0 <1.5.0", "caret range stands alone"),
        (">=1.0.0 ^1.0.0", "caret range stands alone"),
        (">=1.0.0 1.5.0", "each version has its operator"),
        (">= 1.0.0", "no space between"),
        ("^", "is not a version"),
        (">=1.0.0  <2.0.0", "one space"),
        (" 1.0.0", "one space"),
        ("1.0.0 || 2.0.0", "alternatives"),
        (">=2.0.0 <1.0.0", "admits no version"),
        (">1.0.0 <1.0.1", "admits no version"),
        ("=1.0.0 =1.0.1", "admits no version"),
        (">=1.0", "MAJOR.MINOR.PATCH"),
    ],
)
def test_a_bad_range_is_refused_with_a_message_saying_what_is_wrong(text: str, says: str) -> None:
    # The message reaches a case author through the loader's problem: it must
    # say what to fix, not only that the text is wrong.
    with pytest.raises(ValueError, match=says):
        parse_range(text)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("vitou", "give ID/RANGE"),
        ("Vitou/1.0.0", "lower-case"),
        ("2p/1.0.0", "starting with a letter"),
        ("/1.0.0", "lower-case"),
        ("vitou/", "empty"),
        ("vitou/^1.0", "MAJOR.MINOR.PATCH"),
        ("vitou/" + "1" * 300 + ".0.0", "at most 200"),
    ],
)
def test_a_bad_reference_is_refused_with_a_message(text: str, says: str) -> None:
    # A reference names a ruleset id and a range; neither half may be guessed.
    with pytest.raises(ValueError, match=says):
        parse_ref(text)


def test_a_reference_matches_concrete_names_of_its_id_only() -> None:
    # vitou/^1.0.0 must never select a profile (vitou-2p/1.0.0) whose id
    # merely begins like it, nor anything that is not a concrete name.
    ref = parse_ref("vitou/^1.0.0")
    assert ref.matches("vitou/1.0.0") and ref.matches("vitou/1.1.0")
    assert not ref.matches("vitou/2.0.0") and not ref.matches("vitou-2p/1.0.0")
    for other in ("vitou", "vitou/1.0", "vitou/^1.0.0", "vitou/01.0.0", "vitou/1.0.0/x", ""):
        assert not ref.matches(other), other
    assert str(ref) == ref.text == "vitou/^1.0.0" and ref.exact is None
    assert parse_ref("vitou-2p/1.0.0").exact == "vitou-2p/1.0.0"
    assert parse_ref("vitou-2p/>=1.0.0 <2.0.0").matches("vitou-2p/1.4.2")


def test_concrete_names_are_shipped_ones_in_shipped_order_then_exact_names() -> None:
    # Suite.rulesets() and certify's "all" run in this order: it must not
    # depend on the order of the case files, and a name no range selects
    # must not appear.
    shipped = ["vitou/1.0.0", "vitou/1.1.0", "vitou/2.0.0", "vitou-2p/1.0.0"]
    refs = [parse_ref(t) for t in ("club/1.0.0", "vitou-2p/^1.0.0", "vitou/^1.0.0", "vitou/1.0.0")]
    assert concrete_names(refs, shipped) == ["vitou/1.0.0", "vitou/1.1.0", "vitou-2p/1.0.0", "club/1.0.0"]
