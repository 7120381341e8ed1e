"""Why an action was refused, as data: a message key and its parameters, worded in any of the four languages."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..rules.plurals import Forms, PluralRules, check_catalog


@dataclass(frozen=True, slots=True)
class Ref:
    """A parameter to be worded in the reader's language: a seat, a side, a card, a bid, a list of them."""

    kind: str  # seat side card cards bid bids seats sides gestures numbers act plain
    value: Any

    def to_json(self) -> Any:
        return list(self.value) if isinstance(self.value, tuple) else self.value


class Reason:
    """The concrete reason in this position: ``key`` names a template, ``params`` fill it."""

    __slots__ = ("key", "params")

    def __init__(self, key: str, **params: Any) -> None:
        self.key = key
        self.params = params

    def render(self, lang: str = "en", names: bool = False, seat_names: Callable[[str], str] | None = None) -> str:
        return render(self.key, self.params, lang, names, seat_names)

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "params": {k: v.to_json() if isinstance(v, Ref) else v for k, v in self.params.items()},
        }

    def __str__(self) -> str:
        return self.render()

    def __repr__(self) -> str:
        return f"Reason({self.key!r}, {self.params!r})"


def section_titles(cat: dict[str, Any], ruleset: str) -> dict[str, str]:
    """The titles of a rules text's sections in one catalogue: its own (``rulebook.sections_of``, by ruleset
    id or name) over the shared ones (``rulebook.sections``, Vitou's and Le Truc's texts)."""
    book = cat.get("rulebook", {})
    own = book.get("sections_of", {})
    mine = own.get(ruleset.partition("/")[0], {}) if isinstance(own, dict) else {}
    shared = book.get("sections", {})
    return {str(k): str(v) for k, v in {**shared, **(mine if isinstance(mine, dict) else {})}.items()}


@functools.cache
def catalog(lang: str) -> dict[str, Any]:
    """The wording of one language: spec/i18n/<lang>.yaml, English filling any gap."""
    from ..rules.data import data_dir
    from ..rules.errors import VitouError

    path = data_dir("spec") / "i18n" / f"{lang}.yaml"
    if not path.exists():
        raise VitouError(f"no wording for language {lang!r} (languages: {', '.join(languages())})")
    data = read_catalog(str(path), lang, display=f"spec/i18n/{lang}.yaml")
    if lang != "en":
        data = _merge(catalog("en"), data)
    return data


def read_catalog(path: str, lang: str, display: str | None = None) -> dict[str, Any]:
    """One language file, its plural rules and its entries with forms checked (InputError names each problem).

    A translation is checked against English too: an entry takes a count in both or in neither.
    """
    from ..rules.yamlsafe import load_path

    return check_catalog(load_path(path, display=display), lang, None if lang == "en" else catalog("en"))


def plural(lang: str, n: int) -> str:
    """The CLDR plural category of the count ``n`` in ``lang`` ("one", "few", "many", "other"...)."""
    rules: PluralRules = catalog(lang)["plural"]  # quoted in the catalog, checked when it was read
    return rules.category(n)


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for k, v in over.items():
        # An entry with forms is one text: a translation replaces English's forms, never adds to them.
        nested = isinstance(v, dict) and isinstance(base.get(k), dict) and not isinstance(v, Forms)
        out[k] = _merge(base[k], v) if nested else v
    return out


def languages() -> list[str]:
    from ..rules.data import data_dir

    return sorted(p.stem for p in (data_dir("spec") / "i18n").glob("*.yaml"))


def word(lang: str, section: str, key: str, default: str | None = None) -> str:
    value = catalog(lang).get(section, {}).get(key)
    if value is None:
        return default if default is not None else key
    return str(value)


def render(
    key: str,
    params: dict[str, Any],
    lang: str = "en",
    names: bool = False,
    seat_names: Callable[[str], str] | None = None,
    section: str = "reasons",
) -> str:
    template = catalog(lang).get(section, {}).get(key) or catalog("en").get(section, {}).get(key) or key
    values = {k: fmt(v, lang, names, seat_names) for k, v in params.items()}
    try:
        if isinstance(template, Forms):  # an entry that takes a count: the form for the count ``n``
            template = template[plural(template.lang, params["n"])]
        return str(template).format(**values)
    except (KeyError, IndexError, ValueError):
        return f"{key} {values}"


def fmt(value: Any, lang: str, names: bool, seat_names: Callable[[str], str] | None = None) -> str:
    if not isinstance(value, Ref):
        return str(value)
    kind, v = value.kind, value.value
    cat = catalog(lang)
    if kind in ("seat", "side"):
        if not names:
            return str(v)
        if seat_names is not None and kind == "seat":
            return seat_names(v)
        return str(cat.get("names", {}).get(kind + "s", {}).get(v, v))
    if kind in ("seats", "sides"):
        return ", ".join(fmt(Ref(kind[:-1], x), lang, names, seat_names) for x in v)
    if kind == "cards":
        return " ".join(v) if v else str(cat.get("words", {}).get("no_cards", "no cards"))
    if kind in ("bids", "gestures", "numbers"):
        return ", ".join(str(x) for x in v)
    if kind == "act":
        return str(cat.get("acts", {}).get(v, v))
    if kind == "gesture":
        return str(cat.get("names", {}).get("gestures", {}).get(v, v))
    return str(v)
