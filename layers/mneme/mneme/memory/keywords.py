"""The words of a keyword (BM25) query: lower-cased word tokens without English function words.

Every store's keyword leg searches these words (OR), so "what is my sister's name" searches ``sister``,
``name``: without the function words, BM25 over short conversational turns ranks any turn saying "my" or
"is" often enough above the one that answers (measured in ``bench/memory_quality.py``).
"""

from __future__ import annotations

import re

_WORD = re.compile(r"\w+")
MAX_WORDS = 64
STOPWORDS = frozenset(
    ["a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "could", "did", "do", "does", "doing", "down", "during", "each", "few", "for", "from", "further", "had", "has", "have", "having", "he", "her", "here", "hers", "herself", "him", "himself", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "me", "more", "most", "my", "myself", "no", "nor", "not", "now", "of", "off", "on", "once", "only", "or", "other", "our", "ours", "ourselves", "out", "over", "own", "same", "she", "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them", "themselves", "then", "there", "these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "very", "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would", "you", "your", "yours", "yourself", "yourselves", "s", "t", "d", "ll", "m", "re", "ve"]
)


def query_words(text: str) -> list[str]:
    """The distinct searchable words of ``text``, in order (all of them if every word is a function word)."""
    words = list(dict.fromkeys(_WORD.findall(text.lower())))
    content = [w for w in words if w not in STOPWORDS]
    return (content or words)[:MAX_WORDS]
