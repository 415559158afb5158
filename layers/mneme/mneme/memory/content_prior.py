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

**A line that only asks** tells nothing: "Maria: Where are you working these days?" is the best match of "Where is
Maria working these days?" by both legs, and the answer is the line after it (which auto-inject now shows with
it, :mod:`mneme.memory.conversation`). A chat line that is one question and nothing else (:func:`asks_only`) keeps
:data:`QUESTION_FACTOR` of its content factor. Measured in the bench's process (recall@5 / @10 / @20, auto-inject's
block): ours 0.752 / 0.886 / 0.957, 0.768 → 0.802 / 0.906 / 0.967, 0.783 (0.6: 0.803 / 0.909, 0.784); LongMemEval
own 0.769 / 0.887 → 0.771 / 0.885, pooled 0.457 / 0.559 → 0.461 / 0.557 (without the chat-line limit — every
memory ending with a question, LongMemEval's user turns are mostly "… can you recommend …?" — own fell to 0.696 /
0.830); LoCoMo categories 1-4, checked, not tuned on: 0.655 / 0.746 → 0.658 / 0.748, block 0.739 → 0.740.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from mneme.memory.keywords import STOPWORDS
from mneme.memory.speakers import speaker_prefix

CONTENT_WORDS = 3
FLOOR = 0.3
#: the longest memory that is a line of a chat rather than a whole message: it shares a conversation window
#: (:mod:`mneme.memory.hybrid`; LongMemEval, turns of 1,205 characters on average: own sessions @5 / @10 / @20
#: 0.730 / 0.873 / 0.901 -> 0.769 / 0.887 / 0.927, auto-inject 0.580 -> 0.627; pooled 0.426 / 0.547 / 0.589 ->
#: 0.457 / 0.559 / 0.620; LoCoMo's chat lines within 0.001, bench/recall_eval.py unchanged; 250 and 600 measured
#: within 0.01 of 400), brings the lines said around it (:mod:`mneme.memory.conversation`) and may only ask
CHAT_LINE_CHARS = 400
#: the share of its content factor a chat line keeps when all it says is one question (:func:`asks_only`)
QUESTION_FACTOR = 0.8
_TELLS = re.compile(r"[.!?？。！]")  # a sentence's end before the question's own mark: the line tells something too
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


def asks_only(text: str) -> bool:
    """A chat line (at most :data:`CHAT_LINE_CHARS`) that is one question and nothing else: "Maria: Where are you
    working these days?" — not "I switched jobs. Guess where?", nor a long message that ends with a question."""
    body = text[speaker_prefix(text) :].strip()
    return len(text) <= CHAT_LINE_CHARS and body.endswith(("?", "？")) and not _TELLS.search(body[:-1])


@lru_cache(maxsize=4096)  # the same memories are candidates of search after search (a tenth of a search's time)
def content_factor(text: str) -> float:
    """The share of its relevance a memory keeps: 1.0 from :data:`CONTENT_WORDS` content words, :data:`FLOOR`
    with none; a line that only asks keeps :data:`QUESTION_FACTOR` of that."""
    factor = FLOOR + (1.0 - FLOOR) * min(1.0, content_words(text) / CONTENT_WORDS)
    return factor * QUESTION_FACTOR if asks_only(text) else factor
