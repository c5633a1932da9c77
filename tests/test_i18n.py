"""Every UI string exists in English, German and French, with the same placeholders."""
import string

import pytest

from duckcover.common import i18n


def placeholders(text: str) -> set[str]:
    return {field for _, field, _, _ in string.Formatter().parse(text) if field}


@pytest.mark.parametrize("lang", ["de", "fr"])
def test_every_ui_string_exists_in_each_language(lang):
    english = i18n.catalogue("en")
    other = i18n.catalogue(lang)
    assert sorted(set(english) - set(other)) == [], f"missing in {lang}"
    assert sorted(set(other) - set(english)) == [], f"only in {lang}"


@pytest.mark.parametrize("lang", ["de", "fr"])
def test_translations_keep_the_placeholders(lang):
    english = i18n.catalogue("en")
    other = i18n.catalogue(lang)
    wrong = [key for key in english if key in other and placeholders(english[key]) != placeholders(other[key])]
    assert wrong == []


@pytest.mark.parametrize("lang", ["de", "fr"])
def test_translations_are_not_left_in_english(lang):
    english = i18n.catalogue("en")
    other = i18n.catalogue(lang)
    # Short words (names, "Max", symbols) may legitimately match; sentences may not.
    same = [key for key in english if len(english[key]) > 12 and other.get(key) == english[key]]
    assert len(same) <= len(english) // 20, f"untranslated in {lang}: {same[:10]}"


def test_game_terms_follow_the_published_rules():
    expected = {
        "word.quack": ("Quack", "Quak", "Coin"),
        "word.duck": ("Duck", "Ducken", "Plonger"),
        "word.repeat": ("Repeat", "Wiederholen", "Bis"),
        "word.captain": ("Captain", "Kapitän", "Captain"),
    }
    for key, words in expected.items():
        for lang, word in zip(i18n.LANGUAGES, words):
            assert i18n.catalogue(lang)[key] == word


def test_language_comes_from_the_locale(monkeypatch):
    monkeypatch.setenv("LC_ALL", "")
    monkeypatch.setenv("LC_MESSAGES", "")
    monkeypatch.setenv("LANG", "de_DE.UTF-8")
    assert i18n.detect() == "de"
    monkeypatch.setenv("LANG", "pt_BR.UTF-8")
    assert i18n.detect() == "en"


def test_t_formats_and_falls_back_to_english():
    previous = i18n.language()
    try:
        i18n.set_language("fr")
        assert i18n.t("word.quack") == "Coin"
        with pytest.raises(KeyError):
            i18n.t("no.such.key")
        with pytest.raises(ValueError):
            i18n.set_language("xx")
    finally:
        i18n.set_language(previous)
