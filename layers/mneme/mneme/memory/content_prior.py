"""How much a memory says (issue 30.1): a turn of greetings and function words rarely answers a question.

Conversation memory is mostly turns like "Hey Kate!", "Tell me more!" or "What about you, Kate?". Both legs of
the hybrid search favour them: they are short (BM25's length normalisation lifts a short turn that shares one
word with the query) and a small embedding model's similarity follows the name they share with the question
("What are Kate's hobbies?"). So the fused relevance of a memory is multiplied by its **content factor**:
``FLOOR + (1 − FLOOR) × min(1, words / CONTENT_WORDS)``, where ``words`` counts the distinct words of its
content (after a leading ``Speaker:``) that are not English function words (:data:`mneme.memory.keywords.
STOPWORDS`). A memory with :data:`CONTENT_WORDS` or more such words keeps its relevance; "Hey Kate!" (one word)
keeps about half. A word of an unspaced script (e.g. a Chinese sentence, one ``\\w+`` run) counts one per
:data:`CHARS_PER_WORD` characters.

Measured on ``bench/recall_eval.py`` (12 users, 809 questions; docs/performance.md, issue 30): recall@5 / @10
0.495 / 0.586 → 0.565 / 0.647 and auto-inject 0.486 → 0.554, every category up; the factor uses no word list
beyond the function words the keyword leg already drops, so it is not tuned to that benchmark's small talk.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from mneme.memory.keyword_scoring import speaker_prefix
from mneme.memory.keywords import STOPWORDS

CONTENT_WORDS = 3
FLOOR = 0.3
CHARS_PER_WORD = 4  # an unspaced script's run of letters: about one word per this many characters
_WORD = re.compile(r"\w+")  # the keyword leg's words: "I'm" is "i" and "m", both function words


def _weight(word: str) -> int:
    if len(word) > CHARS_PER_WORD and unicodedata.east_asian_width(word[0]) in ("W", "F"):
        return len(word) // CHARS_PER_WORD
    return 1


def distinct_content_words(body: str) -> set[str]:
    """The distinct words of ``body``, lower-cased, that are not English function words."""
    return {lowered for lowered in map(str.lower, _WORD.findall(body)) if lowered not in STOPWORDS}


def content_words(text: str) -> int:
    """The distinct non-function words of ``text`` after its ``Speaker:`` prefix (see the module doc)."""
    return sum(_weight(word) for word in distinct_content_words(text[speaker_prefix(text) :]))


@lru_cache(maxsize=4096)  # the same memories are candidates of search after search (a tenth of a search's time)
def content_factor(text: str) -> float:
    """The share of its relevance a memory keeps: 1.0 from :data:`CONTENT_WORDS` content words, :data:`FLOOR`
    with none."""
    return FLOOR + (1.0 - FLOOR) * min(1.0, content_words(text) / CONTENT_WORDS)
