"""A new user's first hour: recall over SMALL memories (3 to 25 entries), written by hand.

    .venv/bin/python bench/first_hour.py [--scenario NAME] [--quiet]

``bench/recall_eval.py`` measures thousands of turns. A new user meets a small memory first: a handful of notes
about themselves, one short chat, a team's first knowledge-base entries. Nine hand-written scenarios, each stored
in its own user as ``POST /v1/memory/documents`` stores an entry (``mneme.engine.memory_io.entries.new_document``,
then chunked, embedded with ``spoken()`` and put: ``audited_writes.write_documents``), one entry at a time in the
order a user would type them (notes a minute apart, chat lines 20 s apart, an update days later), no
``observed_at``. Every question is asked through the function behind ``POST /v1/memory/search`` and auto-inject
(``search_explained``) over the caller's own namespaces (``http_search_access``), the local MiniLM embedder, the
calibrated default floors:

* ``@1`` / ``@5``: an answerable question whose evidence (any of its memories) is the first hit / among the hits
  of ``POST /v1/memory/search {query}`` (``top_k`` 5, the default; floors on);
* ``open@5``: the same without floors (``min_score`` 0, ``relative_cutoff`` 0): what the floors cost;
* ``inject``: the evidence among what a run's auto-inject shows (the default policy: ``top_k`` 5, the floors, each
  chat-line hit with the lines said around it);
* ``silent``: an off-topic question (general, about the user on a subject never noted, about a known person on a
  subject never mentioned, about a person never mentioned) that returns no hit at all;
* ``stale1st``: an updated fact whose old value ranks above the new one.

Each failure is printed with the question, the expected memory, what came back (relevance) and, from
``explain_search`` (``POST /v1/memory/search {explain: true}``), the expected memory's reason and score parts and
the query's confidence / name lift. Embeddings are cached (``/tmp/mneme-recall-cache``, as
``bench/recall_eval.py``). Deterministic; exits non-zero if it cannot run.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import traceback
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import use_repo_paths  # type: ignore[import-not-found]  # the bench's folder, run as a script

use_repo_paths()

from mneme.engine.memory_io.audited_writes import write_documents  # noqa: E402
from mneme.engine.memory_io.entries import chunked, new_document  # noqa: E402
from mneme.engine.memory_io.explain import explain_search  # noqa: E402
from mneme.engine.memory_io.ops import MemoryPorts, Ranking, search_explained  # noqa: E402
from mneme.memory.access import ReadAccess, http_search_access  # noqa: E402
from mneme.memory.embedding_limits import limit_for  # noqa: E402
from mneme.models.memory import MemoryHit  # noqa: E402

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)  # when each user starts writing
ASKED_AFTER = timedelta(hours=1)  # the questions come an hour after the last write
NOTE_GAP = timedelta(minutes=1)
LINE_GAP = timedelta(seconds=20)

# --------------------------------------------------------------------------------------------------- the data
# A memory: (key, content) or (key, content, days later): stored in this order, notes a minute apart, chat lines
# (``Speaker: text``) 20 s apart, an entry with days stored that many days after the first.
# A question: (question, "key" or "key|key" (any of them answers), kind) or with a 4th element, the stale key(s).
# An off-topic question: (question, kind).
Mem = tuple[str, str] | tuple[str, str, int]
Ask = tuple[str, str, str] | tuple[str, str, str, str]


@dataclass(frozen=True)
class Scenario:
    name: str
    about: str
    memories: list[Mem]
    questions: list[Ask]
    off_topic: list[tuple[str, str]]


ASSISTANT = Scenario(
    "assistant",
    "a personal assistant's notes about its user, in the first person",
    [
        ("allergy", "I'm allergic to peanuts, and tree nuts make my throat itch too."),
        ("diet", "I've been vegetarian since 2019 but I still eat eggs and cheese."),
        ("job", "I work as a product designer at a fintech startup called Ledgerly."),
        ("commute", "I bike to work most days; when it rains I take the 14 bus."),
        ("wife", "My wife Ana is a pediatric nurse and works night shifts on weekends."),
        ("son", "Our son Mateo is six and goes to Hillside Elementary."),
        ("dog", "We have an old beagle named Chorizo who needs his arthritis pills every morning."),
        ("birthday", "My birthday is on November 2nd."),
        ("wedding", "Ana and I got married on June 18, 2016 in Valencia."),
        ("format", "Please keep answers short and use bullet points when listing things."),
        ("coffee", "I drink my coffee black, no sugar. Oat milk only in the afternoon."),
        ("doctor", "My GP is Dr. Okafor at the Riverside clinic, appointment line 555-0142."),
        ("portuguese", "I'm learning Portuguese because we're moving to Lisbon next year."),
        ("car", "I don't own a car; we rent one from Zipcar when we need it."),
        ("caffeine", "I sleep terribly if I have caffeine after 2pm."),
    ],
    [
        ("What am I allergic to?", "allergy", "direct"),
        ("Is there any food I need to avoid?", "allergy|diet", "paraphrase"),
        ("Do I eat meat?", "diet", "paraphrase"),
        ("Where do I work?", "job", "direct"),
        ("What's my job title?", "job", "paraphrase"),
        ("How do I usually get to the office?", "commute", "paraphrase"),
        ("What does my wife do?", "wife", "direct"),
        ("What does Ana do for a living?", "wife", "third-person"),
        ("Which school does Mateo go to?", "son", "third-person"),
        ("What's the dog's name?", "dog", "paraphrase"),
        ("What medication does Chorizo take?", "dog", "third-person"),
        ("When is my birthday?", "birthday", "date"),
        ("When is our wedding anniversary?", "wedding", "date"),
        ("How should you format your answers for me?", "format", "paraphrase"),
        ("How do I take my coffee?", "coffee", "direct"),
        ("What's the phone number of my doctor?", "doctor", "paraphrase"),
        ("Why am I learning Portuguese?", "portuguese", "direct"),
        ("Do I have a car?", "car", "direct"),
        ("What time should I stop drinking coffee?", "caffeine", "paraphrase"),
    ],
    [
        ("What's a good recipe for banana bread?", "general"),
        ("How tall is Mount Kilimanjaro?", "general"),
        ("What is my blood type?", "own-unmentioned"),
        ("Where did I go to university?", "own-unmentioned"),
        ("What's my brother's name?", "own-unmentioned"),
        ("What does Ana like to read?", "known-unmentioned"),
        ("Who is Mateo's best friend?", "known-unmentioned"),
        ("What's Priyanka's phone number?", "stranger"),
    ],
)

CHAT = Scenario(
    "chat",
    "a chat between Kate and Sam, one line a memory",
    [
        ("k1", "Kate: Guess what, I just adopted a puppy!"),
        ("s1", "Sam: No way! What kind?"),
        ("k2", "Kate: A little corgi mix from the shelter on Pine Street. His name is Biscuit."),
        ("s2", "Sam: Biscuit is the perfect name for a corgi."),
        ("k3", "Kate: He already chewed through one of my running shoes though."),
        ("s3", "Sam: Ha, welcome to parenthood. How's the new job going?"),
        ("k4", "Kate: Honestly great. The team at the museum is lovely and I'm finally curating my own exhibit."),
        ("s4", "Sam: What's the exhibit about?"),
        ("k5", "Kate: Japanese woodblock prints, mostly Hokusai and Hiroshige. It opens on April 12."),
        ("s5", "Sam: I'll be there. I might bring Jordan if he's back from Denver by then."),
        ("k6", "Kate: How's Jordan doing with the new restaurant?"),
        ("s6", "Sam: Stressed. The opening got pushed to May because the kitchen inspection failed."),
        ("k7", "Kate: Oof. Tell him I said good luck."),
        ("s7", "Sam: Will do. Also I finally signed up for the Chicago marathon in October."),
        ("k8", "Kate: You're braver than me. My knees gave up after that half marathon in 2021."),
        ("s8", "Sam: I'm following a 16-week plan, four runs a week."),
        ("k9", "Kate: Are you still vegan, by the way? I want to cook when you come over."),
        ("s9", "Sam: Mostly, but I eat fish now, my doctor said my iron was too low."),
        ("k10", "Kate: Noted. I'll make that miso salmon then."),
        ("s10", "Sam: Yes please. I'm also off gluten for a month, just as an experiment."),
        ("k11", "Kate: Fine, rice noodles it is. By the way, my sister Emma is moving in with me in June."),
        ("s11", "Sam: Oh nice, is she still working at the bank?"),
        ("k12", "Kate: No, she quit and is going back to school for nursing."),
        ("s12", "Sam: Good for her. Okay, I have to run, literally. Talk soon!"),
        ("k13", "Kate: Bye! Give Jordan a hug from me."),
    ],
    [
        ("What's the name of Kate's puppy?", "k2", "third-person"),
        ("What breed is Biscuit?", "k2", "third-person"),
        ("Where did Kate adopt her dog?", "k2", "third-person"),
        ("What did Biscuit chew up?", "k3", "third-person"),
        ("Where does Kate work now?", "k4", "third-person"),
        ("What is Kate's exhibit about?", "k5", "third-person"),
        ("When does the woodblock print exhibit open?", "k5", "date"),
        ("Why was Jordan's restaurant opening delayed?", "s6", "third-person"),
        ("When is Jordan's restaurant opening now?", "s6", "date"),
        ("Which marathon is Sam running?", "s7", "third-person"),
        ("How many times a week does Sam train?", "s8", "third-person"),
        ("Why did Kate stop running long races?", "k8", "third-person"),
        ("Is Sam vegan?", "s9", "third-person"),
        ("Why does Sam eat fish now?", "s9", "third-person"),
        ("What is Kate going to cook for Sam?", "k10", "third-person"),
        ("Who is moving in with Kate?", "k11", "third-person"),
        ("What is Emma studying?", "k12", "third-person"),
        ("Where has Jordan been travelling?", "s5", "third-person"),
    ],
    [
        ("What's the capital of Canada?", "general"),
        ("How do I reset my wifi router?", "general"),
        ("What is Sam's favourite band?", "known-unmentioned"),
        ("Where did Kate grow up?", "known-unmentioned"),
        ("What car does Kate drive?", "known-unmentioned"),
        ("What's Olivia's new job?", "stranger"),
        ("How old is Marcus?", "stranger"),
    ],
)

SUPPORT = Scenario(
    "support",
    "a support agent's facts about customers",
    [
        (
            "northwind",
            "Northwind Traders is on the Enterprise plan, renewed through March 2027; their admin is Grace Liu.",
        ),
        ("grace", "Grace Liu prefers email over phone calls and works in the Singapore time zone."),
        ("bluebell-refund", "Bluebell Bakery was charged twice on the January invoice; we refunded $49 on Feb 3."),
        ("bluebell-pos", "Bluebell's owner Tomasz Nowak reports the POS integration drops orders with over 20 items."),
        (
            "pinecrest-sso",
            "Ticket 4812 (Pinecrest Dental): SSO login loops after their Okta migration. Escalated to "
            "engineering, fix expected in release 3.14.",
        ),
        ("pinecrest-seats", "Pinecrest Dental has 14 seats and pays monthly by credit card."),
        (
            "harbor-export",
            "Harbor Freight Logistics asked for a full data export before they cancel at the end of the quarter.",
        ),
        ("harbor-contact", "Harbor's contact Deshawn Miller is frustrated and mentioned switching to Routely."),
        ("greenleaf-discount", "Greenleaf Food Bank gets a 30% nonprofit discount, approved by Marta in sales."),
        ("greenleaf-key", "Greenleaf's API key was rotated on May 8 after it was posted in a public GitHub repo."),
        ("webhooks", "Customers on the Starter plan can't use webhooks; they need Growth or higher."),
        ("velo-vat", "Velo Cycles wants invoices addressed to Velo Cycles B.V. with VAT number NL123456789B01."),
        ("velo-call", "Renewal call with Velo Cycles on July 22 with Anouk de Vries."),
        ("refund-rule", "Refunds over $500 need a team lead's approval before they are issued."),
    ],
    [
        ("What plan is Northwind on?", "northwind", "direct"),
        ("Who is the admin at Northwind Traders?", "northwind", "third-person"),
        ("How does Grace like to be contacted?", "grace", "third-person"),
        ("What time zone is Grace Liu in?", "grace", "third-person"),
        ("Did we refund Bluebell Bakery?", "bluebell-refund", "direct"),
        ("What's wrong with Bluebell's point of sale integration?", "bluebell-pos", "paraphrase"),
        ("What's the status of the Pinecrest SSO issue?", "pinecrest-sso", "direct"),
        ("Which release fixes the Okta login loop?", "pinecrest-sso", "paraphrase"),
        ("How many seats does Pinecrest Dental have?", "pinecrest-seats", "direct"),
        ("Why does Harbor want a data export?", "harbor-export", "direct"),
        ("Which competitor did Deshawn mention?", "harbor-contact", "third-person"),
        ("Is Harbor Freight likely to churn?", "harbor-export|harbor-contact", "paraphrase"),
        ("What discount does Greenleaf get?", "greenleaf-discount", "direct"),
        ("Why was Greenleaf's API key rotated?", "greenleaf-key", "direct"),
        ("Can a customer on Starter set up webhooks?", "webhooks", "paraphrase"),
        ("What VAT number goes on Velo's invoices?", "velo-vat", "direct"),
        ("When is the renewal call with Velo Cycles?", "velo-call", "date"),
        ("Who has to approve a $700 refund?", "refund-rule", "paraphrase"),
    ],
    [
        ("How do I make a sourdough starter?", "general"),
        ("Who won the 2018 World Cup?", "general"),
        ("What plan is Sunrise Yoga on?", "stranger"),
        ("What's Tomasz's phone number?", "known-unmentioned"),
        ("Does Northwind use our mobile app?", "known-unmentioned"),
        ("When is Marta's birthday?", "known-unmentioned"),
        ("What's the status of ticket 5120?", "stranger"),
    ],
)

TEAM = Scenario(
    "team",
    "a team's knowledge base: deploy steps, on-call rota, decisions",
    [
        (
            "deploy",
            "Deploy: merge to main, wait for CI to go green, then run `make release` and approve the prod "
            "step in the pipeline.",
        ),
        ("friday", "Never deploy on Fridays after 2pm unless it's a hotfix approved by the on-call lead."),
        ("rota", "On-call rota for March: week 1 Priya, week 2 Diego, week 3 Hannah, week 4 Olu."),
        (
            "escalation",
            "Pages go to #ops-alerts first; if nobody acks within 15 minutes, call the on-call lead's phone.",
        ),
        ("ci", "Decision (Feb 12): we're moving from Jenkins to GitHub Actions. Diego owns the migration."),
        (
            "postgres",
            "Decision: Postgres stays our primary database. We rejected MongoDB because of the reporting queries.",
        ),
        ("staging", "Staging lives at staging.internal.acme.dev and is reset with fresh data every Sunday night."),
        ("flags", "Feature flags are in LaunchDarkly; clean up flags older than 90 days."),
        ("rollback", "Rollback: run `make rollback VERSION=<previous tag>`, takes about 4 minutes."),
        ("review", "Code review: two approvals for anything touching billing, one for everything else."),
        ("rituals", "Sprint planning is every other Monday at 11; the retro is Friday afternoon of the same week."),
        ("mobile", "Hannah is the point of contact for mobile releases to the App Store."),
        ("secrets", "Secrets live in AWS Secrets Manager. Never commit .env files."),
        ("design", "The design system lives in the 'atoms' repo; the Figma files are linked from its README."),
        ("postmortem", "Incident postmortems are blameless and due within 5 business days."),
    ],
    [
        ("How do I deploy to production?", "deploy", "paraphrase"),
        ("Can I ship on a Friday afternoon?", "friday", "paraphrase"),
        ("Who is on call in the second week of March?", "rota", "date"),
        ("When is Olu on call?", "rota", "third-person"),
        ("What do I do if nobody acknowledges a page?", "escalation", "paraphrase"),
        ("Which CI system are we switching to?", "ci", "paraphrase"),
        ("Who is in charge of the Jenkins migration?", "ci", "direct"),
        ("Why didn't we go with MongoDB?", "postgres", "direct"),
        ("How often is the staging data refreshed?", "staging", "paraphrase"),
        ("What do we use for feature flags?", "flags", "direct"),
        ("How do I roll back a bad release?", "rollback", "paraphrase"),
        ("How many approvals does a billing change need?", "review", "direct"),
        ("When is the retro?", "rituals", "date"),
        ("Who handles App Store submissions?", "mobile", "paraphrase"),
        ("Where should I keep API keys?", "secrets", "paraphrase"),
        ("Where can I find the Figma files?", "design", "direct"),
        ("How long do we have to write a postmortem?", "postmortem", "paraphrase"),
    ],
    [
        ("What's a good name for a cat?", "general"),
        ("How do I cook rice in a pressure cooker?", "general"),
        ("What is Priya's favourite programming language?", "known-unmentioned"),
        ("Which Kubernetes version do we run?", "own-unmentioned"),
        ("Where is the holiday party this year?", "own-unmentioned"),
        ("What did Marcus decide about the new logo?", "stranger"),
    ],
)

UPDATES = Scenario(
    "updates",
    "facts that get updated days later",
    [
        ("standup-old", "Our daily standup is at 9:30am in the Juniper room."),
        ("address-old", "My address is 42 Elm Street, Apt 3B, Portland."),
        ("phone-old", "My phone number is 503-555-0199."),
        ("lead-old", "Our team lead is Rafael."),
        ("launch-old", "The Q3 launch is planned for September 15."),
        ("gym-old", "My gym is FitLab on Burnside, $45 a month."),
        ("bookclub", "Book club meets the first Thursday of each month at Maya's place."),
        ("wifi", "The wifi password at the cabin is pinecone2024."),
        ("standup-new", "We moved the standup to 10am, and it's on Zoom now.", 5),
        ("lead-new", "Rafael moved to the platform team; Mei is our team lead now.", 6),
        ("phone-new", "I changed my number, it's now 503-555-0876.", 7),
        ("launch-new", "The Q3 launch slipped to October 6 because of the security review.", 8),
        ("address-new", "We moved! New address: 118 Alder Lane, Portland, OR 97209.", 9),
        ("gym-new", "I cancelled FitLab and joined the climbing gym, Bouldering Project.", 10),
    ],
    [
        ("What time is standup?", "standup-new", "update", "standup-old"),
        ("Where is the standup held?", "standup-new", "update", "standup-old"),
        ("What's my address?", "address-new", "update", "address-old"),
        ("Where do I live now?", "address-new", "update", "address-old"),
        ("What is my phone number?", "phone-new", "update", "phone-old"),
        ("Who is our team lead?", "lead-new", "update", "lead-old"),
        ("What team is Rafael on now?", "lead-new", "update", "lead-old"),
        ("When is the Q3 launch?", "launch-new", "update", "launch-old"),
        ("Why did the launch slip?", "launch-new", "direct"),
        ("Which gym do I go to?", "gym-new", "update", "gym-old"),
        ("When does book club meet?", "bookclub", "date"),
        ("Where does book club meet?", "bookclub", "direct"),
        ("What's the cabin wifi password?", "wifi", "direct"),
        ("Who is Mei?", "lead-new", "third-person"),
    ],
    [
        ("How do I get a red wine stain out of a carpet?", "general"),
        ("What's the weather in Portland tomorrow?", "general"),
        ("What's Maya's last name?", "known-unmentioned"),
        ("What's my credit card PIN?", "own-unmentioned"),
        ("When is the Q4 planning offsite?", "own-unmentioned"),
        ("Who is Bartholomew?", "stranger"),
    ],
)

MIXED = Scenario(
    "mixed",
    "one user's notes, a chat with a friend and the team's notes in one memory",
    [
        ("lactose", "I'm lactose intolerant, so no regular milk in recipes."),
        ("job", "I run the data platform team at Corvid Health."),
        ("swim-old", "My daughter Isla has swim practice Tuesdays and Thursdays at 5:30."),
        ("passport", "Remind me: my passport expires in August 2026, renew it before the Japan trip."),
        ("seat", "I prefer window seats and fly Alaska Airlines whenever I can."),
        ("n1", "Noor: Are we still on for the Japan trip in October?"),
        ("b1", "Ben: Yes! I booked the flights to Osaka for October 3."),
        ("n2", "Noor: Amazing. I'll handle the ryokan in Kyoto, three nights."),
        ("b2", "Ben: Perfect. Isla is staying with my parents while we're away."),
        ("n3", "Noor: Don't forget I can't do raw fish, so no sushi dinners for me."),
        ("b3", "Ben: Ha, noted. Ramen it is."),
        ("oncall", "Data platform on-call: this week Lars, next week Ben."),
        ("etl", "The nightly ETL job runs at 2am UTC and usually takes 40 minutes."),
        (
            "redshift",
            "Decision: we're deprecating the old Redshift cluster by end of Q2; everything moves to Snowflake.",
        ),
        ("etl-fail", "If the ETL fails, rerun it from Airflow with the backfill flag. Don't restart the scheduler."),
        ("budget", "The Snowflake migration budget is $80k, approved by Carla."),
        ("swim-new", "Isla's swim practice moved to Mondays and Wednesdays.", 4),
    ],
    [
        ("Do I have any food intolerances?", "lactose", "paraphrase"),
        ("Which team do I lead?", "job", "paraphrase"),
        ("When is Isla's swim practice?", "swim-new", "update", "swim-old"),
        ("When does my passport expire?", "passport", "date"),
        ("What seat do I like on planes?", "seat", "paraphrase"),
        ("Which airline do I prefer?", "seat", "paraphrase"),
        ("When do we fly to Osaka?", "b1", "date"),
        ("Who is booking the ryokan?", "n2", "paraphrase"),
        ("How many nights are we staying in Kyoto?", "n2", "paraphrase"),
        ("Who will look after Isla during the trip?", "b2", "third-person"),
        ("What can't Noor eat?", "n3", "third-person"),
        ("Who is on call for data platform next week?", "oncall", "direct"),
        ("What time does the nightly ETL run?", "etl", "direct"),
        ("What's replacing Redshift?", "redshift", "paraphrase"),
        ("What should I do when the ETL job fails?", "etl-fail", "direct"),
        ("How much money do we have for the Snowflake migration?", "budget", "paraphrase"),
        ("Who approved the migration budget?", "budget", "third-person"),
    ],
    [
        ("How many moons does Jupiter have?", "general"),
        ("What's a good stretching routine for runners?", "general"),
        ("What is Noor's job?", "known-unmentioned"),
        ("Where does Lars live?", "known-unmentioned"),
        ("When is Isla's piano recital?", "known-unmentioned"),
        ("What did Henrik say about the dashboards?", "stranger"),
        ("What's my cholesterol level?", "own-unmentioned"),
    ],
)

TINY = Scenario(
    "tiny",
    "a brand-new user's first three notes",
    [
        ("teacher", "I'm Jules, I teach high school chemistry in Leeds."),
        ("cats", "I have two cats, Miso and Tofu."),
        ("race", "I'm training for a 10k in May."),
    ],
    [
        ("What do I teach?", "teacher", "direct"),
        ("What are my cats called?", "cats", "direct"),
        ("What race am I training for?", "race", "direct"),
        ("Which city do I live in?", "teacher", "paraphrase"),
        ("Do I have any pets?", "cats", "paraphrase"),
        ("What's my name?", "teacher", "paraphrase"),
        ("When is my run?", "race", "date"),
    ],
    [
        ("How do I make fluffy pancakes?", "general"),
        ("What's the tallest building in the world?", "general"),
        ("What's my favourite film?", "own-unmentioned"),
        ("When is my dentist appointment?", "own-unmentioned"),
        ("What does Tofu like to eat?", "known-unmentioned"),
        ("Who is Ravi?", "stranger"),
    ],
)

TRIP = Scenario(
    "trip",
    "a group chat of three friends planning a ski weekend",
    [
        ("g1", "Lena: Okay team, I booked the cabin in Tahoe for March 14 to 17!"),
        ("g2", "Omar: Nice. How much per person?"),
        ("g3", "Lena: $210 each, I paid the deposit so just Venmo me."),
        ("g4", "Priti: I can drive, my Subaru has snow tires now."),
        ("g5", "Omar: Great, I'll ride with you. Can we leave Friday at 7am to beat the traffic?"),
        ("g6", "Priti: 7 works. I'll pick you up first, then Lena."),
        ("g7", "Lena: I'm bringing board games and the fondue set."),
        ("g8", "Omar: I'll do groceries. Any allergies I should know about?"),
        ("g9", "Priti: Shellfish for me, and I'm trying to avoid dairy."),
        ("g10", "Lena: So no fondue for Priti then. I'll bring a vegan cheese too."),
        ("g11", "Omar: Should we rent skis there or bring our own?"),
        ("g12", "Priti: I have my own. The rental shop at Heavenly gives 15% off if we book online."),
        ("g13", "Lena: I'll book rentals for me and Omar tonight."),
        ("g14", "Omar: By the way, my brother Karim might join on Saturday."),
        ("g15", "Lena: The more the merrier, the cabin sleeps eight."),
        ("g16", "Priti: Apparently the cabin wifi is terrible, so download your shows before we go."),
        ("g17", "Omar: Check-out is at 11 on Monday, right?"),
        ("g18", "Lena: Yes, 11am sharp, and we have to take the trash out or they charge a $75 fee."),
    ],
    [
        ("When is the Tahoe trip?", "g1", "date"),
        ("Who booked the cabin?", "g1", "paraphrase"),
        ("How much does each person owe Lena?", "g3", "third-person"),
        ("Who is driving to Tahoe?", "g4", "paraphrase"),
        ("What car does Priti have?", "g4", "third-person"),
        ("What time are we leaving on Friday?", "g5|g6", "date"),
        ("What is Lena bringing?", "g7", "third-person"),
        ("Who is buying the groceries?", "g8", "paraphrase"),
        ("What is Priti allergic to?", "g9", "third-person"),
        ("Does Priti eat cheese?", "g9|g10", "third-person"),
        ("Where can we get a discount on ski rentals?", "g12", "paraphrase"),
        ("Does Priti need to rent skis?", "g12", "third-person"),
        ("Who might join us on Saturday?", "g14", "paraphrase"),
        ("How many people does the cabin sleep?", "g15", "direct"),
        ("What time is check-out?", "g18", "date"),
        ("What happens if we don't take the trash out?", "g18", "direct"),
        ("Is the internet good at the cabin?", "g16", "paraphrase"),
    ],
    [
        ("How do I wax a snowboard?", "general"),
        ("What's the best pizza place in Chicago?", "general"),
        ("What does Omar do for work?", "known-unmentioned"),
        ("Where does Lena work?", "known-unmentioned"),
        ("When is Karim's birthday?", "known-unmentioned"),
        ("Is Rachel coming to Tahoe?", "stranger"),
    ],
)

HEALTH = Scenario(
    "health",
    "a first-person health and training journal with dates",
    [
        ("10k", "March 3: ran 10k in 52 minutes, left knee felt fine."),
        ("physio", "March 9: physio said to cut my mileage by 20% for two weeks because of shin splints."),
        ("vitd", "Blood test on Feb 20: vitamin D low (18 ng/mL), started 2000 IU daily."),
        ("hr", "My resting heart rate is usually around 54."),
        ("hayfever", "I take 10mg of cetirizine in spring for hay fever."),
        ("dentist", "Dentist appointment April 16 at 3:15pm with Dr. Hale: cleaning and a look at the cracked molar."),
        ("goal", "Goal for this year: a sub-4-hour marathon at the Portland Marathon in October."),
        ("exercises", "Started physio exercises: calf raises 3x15 and foam rolling every evening."),
        ("weight", "Weighed 74.5 kg on March 1."),
        ("flu", "Flu shot done on October 12 at the pharmacy on 5th Avenue."),
        ("coffee", "Cut down to one cup of coffee a day since I was getting headaches."),
        ("mattress", "Slept badly all week; the new mattress arrives on the 18th."),
    ],
    [
        ("How fast was my last 10k?", "10k", "paraphrase"),
        ("What did the physio tell me?", "physio", "direct"),
        ("Why do I need to cut my mileage?", "physio", "direct"),
        ("What were my vitamin D results?", "vitd", "direct"),
        ("How much vitamin D am I taking?", "vitd", "direct"),
        ("What's my resting pulse?", "hr", "paraphrase"),
        ("What do I take for allergies?", "hayfever", "paraphrase"),
        ("When is my dentist appointment?", "dentist", "date"),
        ("Which tooth is the dentist checking?", "dentist", "paraphrase"),
        ("What's my marathon goal?", "goal", "direct"),
        ("Which exercises am I supposed to do?", "exercises", "paraphrase"),
        ("How much did I weigh in March?", "weight", "date"),
        ("When did I get my flu shot?", "flu", "date"),
        ("Why did I cut back on coffee?", "coffee", "direct"),
        ("When is the new mattress coming?", "mattress", "date"),
    ],
    [
        ("How do I change a car tyre?", "general"),
        ("What's the population of Brazil?", "general"),
        ("What is my cholesterol level?", "own-unmentioned"),
        ("When is my eye exam?", "own-unmentioned"),
        ("What's Dr. Hale's first name?", "known-unmentioned"),
        ("What did Dr. Ramirez prescribe?", "stranger"),
    ],
)

SCENARIOS = [ASSISTANT, CHAT, SUPPORT, TEAM, UPDATES, MIXED, TINY, TRIP, HEALTH]
MIN_ANSWERABLE, MIN_OFF_TOPIC, MIN_SCENARIOS = 120, 50, 8


# --------------------------------------------------------------------------------------------------- the run
class _NoAudit:
    def append(self, records: Any) -> None:
        pass


def _records(*_: Any, **__: Any) -> list[Any]:
    return []


class _Clock:
    def __init__(self) -> None:
        self.moment = START

    def now(self) -> datetime:
        return self.moment


class _CachedEmbedder:
    """The local MiniLM embedder behind ``bench/recall_eval.py``'s on-disk cache."""

    def __init__(self) -> None:
        from recall_eval import Embeddings  # type: ignore[import-not-found]

        self._cache = Embeddings()
        self.model_id: str = self._cache.model.model_id
        self.dimension: int = self._cache.model.dimension

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        vectors: list[list[float]] = self._cache(list(texts))
        return vectors


@dataclass
class Result:
    scenario: str
    question: str
    kind: str
    expected: list[str]  # memory ids
    stale: list[str]
    hits: list[MemoryHit]  # POST /v1/memory/search {query} (top_k 5, floors)
    open_hits: list[MemoryHit]  # the same without floors
    shown: list[str]  # what auto-inject shows: hits and their lines
    explained: dict[str, Any] = field(default_factory=dict)

    @property
    def at1(self) -> bool:
        return bool(self.hits) and self.hits[0].id in self.expected

    @property
    def at5(self) -> bool:
        return any(hit.id in self.expected for hit in self.hits)

    @property
    def open5(self) -> bool:
        return any(hit.id in self.expected for hit in self.open_hits)

    @property
    def injected(self) -> bool:
        return any(i in self.expected for i in self.shown)

    @property
    def stale_first(self) -> bool:
        ids = [hit.id for hit in self.open_hits]
        old = [ids.index(i) for i in self.stale if i in ids]
        new = [ids.index(i) for i in self.expected if i in ids]
        return bool(old) and (not new or min(old) < min(new))


def store_scenario(ports: MemoryPorts, clock: _Clock, user: str, scenario: Scenario) -> dict[str, str]:
    """Store ``scenario``'s memories as ``POST /v1/memory/documents`` does, one at a time; its keys' ids."""
    namespace = f"vector.user.{user}.memory"
    ids: dict[str, str] = {}
    moment = START
    limit = limit_for(ports.model_id)
    for n, memory in enumerate(scenario.memories):
        key, content = memory[0], memory[1]
        days = memory[2] if len(memory) == 3 else 0
        step = LINE_GAP if _is_line(content) else NOTE_GAP
        moment = max(moment + step, START + timedelta(days=days)) if n else START
        clock.moment = moment
        document = new_document(
            f"{user}-{key}", namespace, user, content, clock=clock, metadata={"source": "http", "user_id": user}
        )
        ids[key] = write_documents(ports, chunked(document, limit))[0]
    clock.moment = moment + ASKED_AFTER
    return ids


def _is_line(content: str) -> bool:
    head = content.split(":", 1)[0]
    return ":" in content and head.istitle() and " " not in head


def ask(ports: MemoryPorts, access: ReadAccess, question: str, ranking: Ranking) -> list[MemoryHit]:
    return search_explained(ports, _records, access, question, ranking, via="bench").hits


def explain(ports: MemoryPorts, access: ReadAccess, user: str, question: str) -> dict[str, Any]:
    """``POST /v1/memory/search {query, explain: true}``: every candidate's reason and score parts, the thresholds."""
    explanation = explain_search(
        ports, _records, access, question, Ranking(top_k=5), user_id=user, via="bench", granted_by="own_namespaces"
    )
    reasons = {entry["id"]: entry for entry in [*explanation.hits, *explanation.dropped]}
    return {"reasons": reasons, "thresholds": explanation.thresholds}


def run_scenario(ports: MemoryPorts, clock: _Clock, scenario: Scenario) -> list[Result]:
    user = f"fh-{scenario.name}"
    ids = store_scenario(ports, clock, user, scenario)
    access = http_search_access(user)
    results = []
    default, opened = Ranking(top_k=5), Ranking(top_k=5, min_score=0, relative_cutoff=0)
    injected = Ranking(top_k=5, lines=True)
    asked = [(q[0], q[1].split("|"), q[2], q[3].split("|") if len(q) == 4 else []) for q in scenario.questions]
    asked += [(text, [], kind, []) for text, kind in scenario.off_topic]
    for question, keys, kind, stale in asked:
        block = ask(ports, access, question, injected)
        result = Result(
            scenario.name,
            question,
            kind,
            [ids[k] for k in keys],
            [ids[k] for k in stale],
            ask(ports, access, question, default),
            ask(ports, access, question, opened),
            list(dict.fromkeys([*(h.id for h in block), *(line.id for h in block for line in h.context)])),
        )
        failed = (result.expected and not result.at1) or (not result.expected and result.hits) or result.stale_first
        if failed:
            result.explained = explain(ports, access, user, question)
        results.append(result)
    return results


# --------------------------------------------------------------------------------------------------- the report
def _share(flags: list[bool]) -> str:
    return f"{sum(flags):3d}/{len(flags):<3d} {sum(flags) / len(flags):5.3f}" if flags else "      -      "


def _row(label: str, results: list[Result]) -> str:
    answerable = [r for r in results if r.expected]
    off = [r for r in results if not r.expected]
    return (
        f"{label:<22} {_share([r.at1 for r in answerable])}  {_share([r.at5 for r in answerable])}  "
        f"{_share([r.open5 for r in answerable])}  {_share([r.injected for r in answerable])}  "
        f"{_share([not r.hits for r in off])}  {sum(r.stale_first for r in answerable):3d}"
    )


def _brief(hit: MemoryHit, expected: list[str]) -> str:
    mark = "*" if hit.id in expected else " "
    return f"{mark}{hit.relevance:.3f} {_clip(hit.content)}"


def _clip(text: str, size: int = 70) -> str:
    return text if len(text) <= size else text[: size - 1] + "…"


def _scores(entry: dict[str, Any]) -> str:
    scores = entry.get("scores") or {}
    parts = [f"reason={entry.get('reason')}"]
    parts += [f"{k}={scores[k]}" for k in ("relevance", "similarity", "vector", "keyword", "content") if k in scores]
    parts += [f"{k}={entry[k]}" for k in ("restates", "says_nothing", "duplicate_of") if k in entry]
    return " ".join(parts)


def _thresholds(explained: dict[str, Any]) -> str:
    thresholds = explained.get("thresholds") or {}
    parts = [f"min_score={thresholds.get('min_score')}"]
    if "confidence" in thresholds:
        parts.append(f"confidence={thresholds['confidence']}")
    if "name_lift" in thresholds:
        parts.append(f"name_lift={thresholds['name_lift']}")
    return " ".join(parts)


def _why(result: Result) -> str:
    """The explain reason of the best-placed expected memory, with what explains a floor: the query's confidence
    0 (no vector or keyword evidence vouched for it), a note that says nothing, a confidence under the floor."""
    entries = [result.explained.get("reasons", {}).get(i, {"reason": "not_retrieved"}) for i in result.expected]
    entry = max(entries, key=lambda e: (e.get("scores") or {}).get("relevance") or 0.0)
    reason = str(entry.get("reason"))
    if reason != "below_floor":
        return reason
    thresholds = result.explained.get("thresholds") or {}
    confidence = thresholds.get("confidence") or {}
    if entry.get("says_nothing"):
        return "below_floor (says_nothing)"
    if not confidence.get("value"):
        return "below_floor (confidence 0)"
    return (
        "below_floor (confidence under min_score)"
        if confidence["value"] < thresholds["min_score"]
        else "below_floor (share)"
    )


def print_failure(result: Result, contents: dict[str, str]) -> None:
    if result.expected:
        what = "stale first" if result.stale_first and result.at5 else "not first" if result.at5 else "MISSED"
        if not result.at5 and result.open5:
            what = "MISSED (found without floors)"
        print(f"  [{result.scenario}/{result.kind}] {what}: {result.question}")
        for doc_id in result.expected:
            entry = result.explained.get("reasons", {}).get(doc_id, {"reason": "not_retrieved"})
            print(f"      expected: {_clip(contents[doc_id])}  ({_scores(entry)})")
        for doc_id in result.stale:
            entry = result.explained.get("reasons", {}).get(doc_id, {"reason": "not_retrieved"})
            print(f"      stale:    {_clip(contents[doc_id])}  ({_scores(entry)})")
    else:
        print(
            f"  [{result.scenario}/{result.kind}] NOT SILENT: {result.question} "
            f"(auto-inject shows {len(result.shown)} memories: {len(result.hits)} hits and their lines)"
        )
    hits = result.hits or result.open_hits[:3]
    label = "returned" if result.hits else "nothing; best without floors"
    print(f"      {label}: " + " | ".join(_brief(h, result.expected) for h in hits))
    print(f"      {_thresholds(result.explained)}")


def report(results: list[Result], contents: dict[str, str], *, quiet: bool) -> None:
    head = (
        f"{'':<22} {'@1 (floors)':>13}  {'@5 (floors)':>13}  {'open@5':>13}  {'inject':>13}  "
        f"{'off-topic silent':>13}  stale1st"
    )
    print(head)
    by_scenario: dict[str, list[Result]] = defaultdict(list)
    by_kind: dict[str, list[Result]] = defaultdict(list)
    for r in results:
        by_scenario[r.scenario].append(r)
        by_kind[("answer:" if r.expected else "off:") + r.kind].append(r)
    for name, group in by_scenario.items():
        print(_row(name, group))
    print(_row("TOTAL", results))
    print("by kind of question:")
    for kind, group in sorted(by_kind.items()):
        print(_row("  " + kind, group))
    failures = [r for r in results if r.explained]
    missed = [r for r in failures if r.expected and not r.at5]
    print(
        f"\nfailures: {len(missed)} answerable missed @5, "
        f"{sum(1 for r in failures if r.expected and r.at5 and not r.at1)} @5 but not @1, "
        f"{sum(1 for r in failures if r.stale_first)} stale first, "
        f"{sum(1 for r in failures if not r.expected)} off-topic not silent"
    )
    reasons: dict[str, int] = defaultdict(int)
    for r in missed:
        reasons[_why(r)] += 1
    print(
        "answerable missed @5, by the expected memory's explain reason: "
        + ", ".join(f"{why} {n}" for why, n in sorted(reasons.items(), key=lambda item: -item[1]))
    )
    if quiet:
        return
    for title, chosen in (
        ("answerable, evidence not in the hits @5", missed),
        (
            "answerable, evidence @5 but not first",
            [r for r in failures if r.expected and r.at5 and not r.at1 and not r.stale_first],
        ),
        ("updated facts whose old value ranks above the new one", [r for r in failures if r.stale_first]),
        ("off-topic questions that returned hits", [r for r in failures if not r.expected]),
    ):
        print(f"\n--- {title} ({len(chosen)})")
        for r in chosen:
            print_failure(r, contents)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", action="append", help="only this scenario (repeatable)")
    parser.add_argument("--quiet", action="store_true", help="the tables only, not each failure")
    args = parser.parse_args()
    try:
        chosen = [s for s in SCENARIOS if not args.scenario or s.name in args.scenario]
        if not chosen:
            raise SystemExit(f"no scenario named {args.scenario}; known: {[s.name for s in SCENARIOS]}")
        if not args.scenario:
            _check_size()
        return _run(chosen, quiet=args.quiet)
    except Exception:
        traceback.print_exc()
        print("first_hour: could not run", file=sys.stderr)
        return 1


def _check_size() -> None:
    answerable = sum(len(s.questions) for s in SCENARIOS)
    off = sum(len(s.off_topic) for s in SCENARIOS)
    if len(SCENARIOS) < MIN_SCENARIOS or answerable < MIN_ANSWERABLE or off < MIN_OFF_TOPIC:
        raise ValueError(f"{len(SCENARIOS)} scenarios, {answerable} answerable, {off} off-topic: too few")
    for scenario in SCENARIOS:
        keys = [m[0] for m in scenario.memories]
        if len(set(keys)) != len(keys):
            raise ValueError(f"{scenario.name}: a memory key is used twice")
        used = {k for q in scenario.questions for part in q[1:2] + q[3:4] for k in part.split("|")}
        if unknown := used - set(keys):
            raise ValueError(f"{scenario.name}: questions name unknown memories {sorted(unknown)}")


def _run(chosen: list[Scenario], *, quiet: bool) -> int:
    embedder = _CachedEmbedder()
    clock = _Clock()
    from mneme_local.vector_store import EmbeddedVectorStore

    with tempfile.TemporaryDirectory() as folder:
        store = EmbeddedVectorStore(Path(folder) / "memory.sqlite3")
        try:
            ports = MemoryPorts(store=store, embedder=embedder, audit=_NoAudit(), clock=clock)  # type: ignore[arg-type]
            results: list[Result] = []
            for scenario in chosen:
                results += run_scenario(ports, clock, scenario)
            contents = {
                f"fh-{s.name}-{m[0]}": m[1] for s in chosen for m in s.memories
            }  # ids are user-key, see store_scenario
        finally:
            store.close()
    memories = sum(len(s.memories) for s in chosen)
    answerable = sum(1 for r in results if r.expected)
    print(
        f"{len(chosen)} scenarios, {memories} memories ({min(len(s.memories) for s in chosen)}-"
        f"{max(len(s.memories) for s in chosen)} a user), {answerable} answerable and {len(results) - answerable} "
        f"off-topic questions, {embedder.model_id}, POST /v1/memory/search defaults (top_k 5, calibrated floors)\n"
    )
    report(results, contents, quiet=quiet)
    return 0


if __name__ == "__main__":
    sys.exit(main())
