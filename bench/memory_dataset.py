"""A deterministic conversational memory dataset for ``bench/memory_quality.py`` (generated, never downloaded).

Ten people (one per conversation), each with 16 dated weekly sessions of 10 turns (5 user, 5 assistant):
160 turns per conversation, 1,600 in all. Facts are planted in user turns of chosen sessions; every other
turn is small talk drawn from templates that share words with the questions (people, places, food, work) so
neither keyword nor vector search finds the evidence for free. 31 questions per conversation, 310 in all:

* ``single-hop`` (8): one fact, asked in other words ("What is my sister called?").
* ``multi-hop`` (5): two facts in different sessions ("Which city does the person who gave me the cello
  live in?" needs "uncle Tomas gave me a cello" and "Tomas lives in Graz").
* ``temporal`` (5): when something happened; the evidence turn's session date answers it.
* ``knowledge-update`` (5): a fact that changed; the evidence is the CURRENT value's turn, the old turn is
  listed as ``stale`` (finding only it is a miss).
* ``preference`` (5): a preference asked indirectly ("What should you bring me to drink?").
* ``unanswerable`` (3): something never said (no evidence; scored by what is injected anyway).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta

SEED = 13
CONVERSATIONS, SESSIONS, PAIRS = 10, 16, 5

NAMES = [
    "Clara",
    "Tomas",
    "Ingrid",
    "Mateo",
    "Yuki",
    "Amara",
    "Felix",
    "Sanna",
    "Ravi",
    "Lucia",
    "Oskar",
    "Noor",
    "Emil",
    "Zofia",
    "Pavel",
    "Greta",
    "Hugo",
    "Mina",
    "Bruno",
    "Alma",
]
CITIES = [
    "Graz",
    "Oslo",
    "Porto",
    "Lyon",
    "Gdansk",
    "Bergen",
    "Seville",
    "Turku",
    "Ghent",
    "Brno",
    "Cork",
    "Basel",
    "Leipzig",
    "Bari",
    "Tartu",
    "Malmo",
]
COMPANIES = [
    "Acme",
    "Globex",
    "Initech",
    "Umbrella",
    "Hooli",
    "Vandelay",
    "Soylent",
    "Stark",
    "Wayne",
    "Cyberdyne",
    "Tyrell",
    "Gringotts",
]
JOBS = ["tester", "nurse", "architect", "baker", "pilot", "teacher", "chemist", "editor", "carpenter", "analyst"]
PETS = ["a beagle", "a tabby cat", "a parrot", "two rabbits", "a corgi", "a tortoise", "a goldfish", "a husky"]
PET_NAMES = ["Biscuit", "Pepper", "Mango", "Ziggy", "Nutmeg", "Olive", "Waffles", "Juniper", "Pixel", "Sprout"]
INSTRUMENTS = ["cello", "banjo", "oboe", "ukulele", "trumpet", "harp", "accordion", "violin"]
DRINKS = [
    ("green tea", "coffee"),
    ("oat milk lattes", "black coffee"),
    ("sparkling water", "soda"),
    ("hot chocolate", "tea"),
    ("fresh orange juice", "cola"),
    ("chai", "espresso"),
]
FOODS = [
    ("spicy ramen", "sushi"),
    ("mushroom risotto", "pizza"),
    ("lentil curry", "burgers"),
    ("grilled sardines", "steak"),
    ("falafel wraps", "pasta"),
    ("dumplings", "tacos"),
]
HOBBIES = ["bouldering", "birdwatching", "pottery", "sailing", "chess", "gardening", "trail running", "origami"]
CARS = ["a red Volvo", "a blue Fiat", "a green Skoda", "a white Tesla", "a grey Mazda", "a black Saab"]
SEASONS = ["spring", "summer", "autumn", "winter"]

SMALL_TALK_USER = [
    "The weather in {city} looked grim on the news today.",
    "I read an article about {hobby} and how people get into it.",
    "My colleague keeps talking about her trip to {city}.",
    "I watched a documentary about {company} last night, quite dull.",
    "A friend of mine adopted {pet} and sends me photos all day.",
    "Traffic was awful this morning, I was late for everything.",
    "I tried a new recipe with {food} but it did not turn out well.",
    "Someone at the gym was playing the {instrument} in the changing room, odd.",
    "My neighbour {name} is repainting the fence again.",
    "Do you think people drink too much {drink} these days?",
    "I need to book a dentist appointment soon, I keep forgetting.",
    "The train to {city} was cancelled, so I stayed home and cleaned.",
    "I saw {car} parked in front of the bakery, it reminded me of my childhood.",
    "We had a long meeting about budgets, nobody agreed on anything.",
    # hard negatives: the questions' topics, about other people
    "My colleague's sister is called {name} and she is a {job}.",
    "{name} just bought {car}, he talks about it constantly.",
    "{name} lives in {city} now and keeps inviting me over.",
    "A friend works at {company} and says the canteen is great.",
    "My neighbour prefers {drink} and offers it to everyone.",
    "{name} passed the driving test last week, good for them.",
    "{name} started learning the {instrument}, the whole building hears it.",
    "My cousin's pet is {pet}, it ruined the sofa.",
    "{name} told me about a half marathon in {city}.",
    "Someone at work is learning Japanese for a trip.",
]
SMALL_TALK_ASSISTANT = [
    "That sounds like quite a day. How did you feel about it?",
    "Interesting! Tell me more if you like.",
    "I understand. Small things like that can add up.",
    "Good to know. Is there anything I can help you plan?",
    "That makes sense. Let me know if you want some ideas.",
    "Thanks for sharing that with me.",
]


@dataclass
class Turn:
    turn_id: str
    session: int
    at: datetime
    speaker: str
    text: str


@dataclass
class Question:
    qid: str
    category: str
    question: str
    evidence: list[str]
    stale: list[str] = field(default_factory=list)


@dataclass
class Conversation:
    user: str
    turns: list[Turn]
    questions: list[Question]


def _session_day(conv: int, session: int) -> date:
    return date(2026, 1, 5) + timedelta(days=7 * session + conv)


def conversation(index: int) -> Conversation:
    rng = random.Random(SEED * 1000 + index)
    user = f"person{index:02d}"
    slots: dict[tuple[int, int], str] = {}  # (session, pair) -> planted user text
    facts: list[tuple[str, str, list[tuple[int, int]], list[tuple[int, int]]]] = []  # (cat, q, evidence, stale)
    free = [(s, p) for s in range(SESSIONS) for p in range(PAIRS)]
    rng.shuffle(free)

    def plant(text: str, earliest: int = 0, latest: int = SESSIONS - 1) -> tuple[int, int]:
        for i, (s, p) in enumerate(free):
            if earliest <= s <= latest:
                free.pop(i)
                slots[(s, p)] = text
                return (s, p)
        raise RuntimeError("no free slot")

    names, cities = rng.sample(NAMES, 12), rng.sample(CITIES, 12)
    companies, jobs = rng.sample(COMPANIES, 6), rng.sample(JOBS, 6)
    # single-hop: 8 facts asked in other words
    single = [
        (f"My sister is called {names[0]}, she is two years older than me.", "What is my sister's name?"),
        (f"I drive {rng.choice(CARS)} that I bought second hand.", "What car do I have?"),
        (f"At home we have {rng.choice(PETS)} named {rng.choice(PET_NAMES)}.", "What is my pet called?"),
        (f"I grew up in {cities[0]} before moving away for university.", "Where did I spend my childhood?"),
        (f"My favourite hobby is {rng.choice(HOBBIES)}, I do it every weekend.", "What do I do on weekends?"),
        (f"My best friend {names[1]} works as a {jobs[0]}.", f"What does {names[1]} do for a living?"),
        ("I am allergic to peanuts, so I check every label.", "Do I have any food allergy?"),
        ("My flat is on the fourth floor of an old building near the river.", "Which floor do I live on?"),
    ]
    for text, q in single:
        facts.append(("single-hop", q, [plant(text)], []))
    # multi-hop: two facts in different sessions
    instrument = rng.choice(INSTRUMENTS)
    multi = [
        (
            f"My uncle {names[2]} gave me his old {instrument} for my birthday.",
            f"{names[2]} lives in {cities[1]} these days.",
            f"Which city does the person who gave me the {instrument} live in?",
        ),
        (
            f"My cousin {names[3]} just started a job at {companies[0]}.",
            f"{companies[0]} has its head office in {cities[2]}.",
            f"In which city is the office of the company my cousin {names[3]} joined?",
        ),
        (
            f"My manager is {names[4]}.",
            f"{names[4]} is training for a marathon in {cities[3]}.",
            "Where is my manager running a marathon?",
        ),
        (
            f"I lent my bike to {names[5]} last month.",
            f"{names[5]} moved to {cities[4]} for a new job.",
            "Where is my bike now, given who borrowed it?",
        ),
        (
            f"My grandmother {names[6]} taught me to bake bread.",
            f"{names[6]} celebrated her ninetieth birthday in {cities[5]}.",
            "Where did the person who taught me baking celebrate her birthday?",
        ),
    ]
    for first, second, q in multi:
        a = plant(first, 0, 7)
        b = plant(second, 8, SESSIONS - 1)
        facts.append(("multi-hop", q, [a, b], []))
    # temporal: when did it happen (the session date answers it)
    temporal = [
        (
            f"Today I had my first {instrument} lesson, my fingers hurt.",
            f"When did I take my first {instrument} lesson?",
        ),
        ("I finally passed my driving test this morning!", "When did I pass my driving test?"),
        ("We signed the lease for the new flat today.", "When did we sign the lease for the flat?"),
        (f"I ran my first half marathon this weekend in {cities[6]}.", "When did I run my first half marathon?"),
        (
            "Today was my last day at the old volunteering job at the library.",
            "When did I stop volunteering at the library?",
        ),
    ]
    for text, q in temporal:
        facts.append(("temporal", q, [plant(text)], []))
    # knowledge-update: the current value (later session) is the evidence, the old one is stale
    updates = [
        (
            f"I work at {companies[1]} as a {jobs[1]}.",
            f"I switched jobs: I now work at {companies[2]} as a {jobs[2]}.",
            "Where do I work now?",
        ),
        (
            f"I live in {cities[7]} with two flatmates.",
            f"We moved last week, I live in {cities[8]} now.",
            "Which city do I live in?",
        ),
        (f"My partner is {names[7]}.", f"{names[7]} and I split up; I am dating {names[8]} now.", "Who is my partner?"),
        (
            "I am learning Spanish with an app.",
            "I gave up Spanish and I am learning Japanese now.",
            "Which language am I learning?",
        ),
        (
            "My phone is an old Nokia that still works.",
            "I replaced my old phone with a Pixel last week.",
            "What phone do I use?",
        ),
    ]
    for old, new, q in updates:
        stale = plant(old, 0, 6)
        current = plant(new, 9, SESSIONS - 1)
        facts.append(("knowledge-update", q, [current], [stale]))
    # preference: asked indirectly
    drink, not_drink = rng.choice(DRINKS)
    food, not_food = rng.choice(FOODS)
    prefs = [
        (f"I really prefer {drink} over {not_drink}.", "What should you bring me to drink?"),
        (
            f"If I can choose dinner, I always go for {food} rather than {not_food}.",
            "What should we cook for dinner tonight?",
        ),
        ("I like quiet mornings and hate loud music before ten.", "Should I put on some loud music at breakfast?"),
        ("For holidays I prefer cold places with mountains to beaches.", "Suggest a holiday destination for me."),
        ("I would rather read paper books than e-books.", "Should I buy you an e-reader as a gift?"),
    ]
    for text, q in prefs:
        facts.append(("preference", q, [plant(text)], []))
    unanswerable = [
        "What is my brother's favourite football team?",
        "How many children do I have?",
        "What did I study at university?",
    ]

    turns: list[Turn] = []
    by_slot: dict[tuple[int, int], str] = {}
    for s in range(SESSIONS):
        day = _session_day(index, s)
        for p in range(PAIRS):
            at = datetime(day.year, day.month, day.day, 19, 2 * p, tzinfo=UTC)
            text = slots.get((s, p)) or rng.choice(SMALL_TALK_USER).format(
                city=rng.choice(CITIES),
                hobby=rng.choice(HOBBIES),
                company=rng.choice(COMPANIES),
                pet=rng.choice(PETS),
                food=rng.choice(FOODS)[1],
                instrument=rng.choice(INSTRUMENTS),
                name=rng.choice(NAMES),
                drink=rng.choice(DRINKS)[1],
                car=rng.choice(CARS),
                job=rng.choice(JOBS),
            )
            turn_id = f"{user}-s{s:02d}-t{2 * p}"
            by_slot[(s, p)] = turn_id
            turns.append(Turn(turn_id, s, at, "user", text))
            turns.append(
                Turn(
                    f"{user}-s{s:02d}-t{2 * p + 1}",
                    s,
                    at + timedelta(minutes=1),
                    "assistant",
                    rng.choice(SMALL_TALK_ASSISTANT),
                )
            )
    questions = [
        Question(f"{user}-q{i:02d}", cat, q, [by_slot[e] for e in ev], [by_slot[e] for e in stale])
        for i, (cat, q, ev, stale) in enumerate(facts)
    ]
    questions += [Question(f"{user}-u{i}", "unanswerable", q, []) for i, q in enumerate(unanswerable)]
    return Conversation(user, turns, questions)


def dataset() -> list[Conversation]:
    return [conversation(i) for i in range(CONVERSATIONS)]
