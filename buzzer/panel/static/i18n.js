/* svoyak panel: the lookup of the words on the screens, Russian first.
   The words themselves are the catalogue, buzzer/words/<lang>.json; the server
   hands its "panel" part to the page as /words.js (WORDS, loaded just before
   this file). A text's fields are written {name}, filled in by name, as the
   Python side (buzzer.words.tr) fills them. */
"use strict";

const I18n = (() => {
  const FALLBACK = "ru";

  function has(lang) {
    return Object.prototype.hasOwnProperty.call(WORDS, lang);
  }

  function fill(text, vars) {
    if (!vars) return text;
    for (const [k, v] of Object.entries(vars)) text = text.split("{" + k + "}").join(String(v));
    return text;
  }

  /* The text of `key` in `lang`, else in Russian, else the key itself (a key
     the catalogue lacks shows on the page, where a test or a tester sees it). */
  function t(lang, key, vars) {
    const text = (has(lang) ? WORDS[lang][key] : undefined) ?? WORDS[FALLBACK][key] ?? key;
    return fill(text, vars);
  }

  return { FALLBACK, has, fill, t };
})();
