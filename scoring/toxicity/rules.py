"""Transparent patterns for the rubric's kinds of toxicity that a profanity model misses.

Each rule has a kind (one of :data:`KINDS`), a name, a confidence and a regular expression; in the patterns below a
space stands for ``\\s+`` and ``{NAME}`` for a word list from ``_VOCAB``. Written from general knowledge of abusive
language, checked on the ``dev`` split of ``tests/scoring/data/toxicity_labelled.csv``; ``bench/toxicity_eval.py``
reports how they do on the ``heldout`` and ``fresh`` splits and on real human-rated texts. A rule fires on wording,
not meaning: sarcasm, paraphrase, quotes and negation fool it (``KNOWN_GAPS`` in :mod:`scoring.toxicity.classifier`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from scoring.text.literals import LiteralIndex

__all__ = ["KINDS", "KIND_LABELS", "RULES", "Rule", "Trigger", "candidate_rules", "match_rules", "normalise"]

KINDS = ("personal_attack", "mockery", "hate", "dismissive", "threat")
#: How a reason names each kind (the classifier's "offensive_language" too).
KIND_LABELS = {
    "personal_attack": "personal attack",
    "mockery": "mockery",
    "hate": "hate",
    "dismissive": "dismissive statement",
    "threat": "threat or intimidation",
    "offensive_language": "offensive language",
}

_VOCAB = {
    "NOUN": "idiots?(?!-?proof)|morons?|imbeciles?|fools?|clowns?|losers?|jerks?|cowards?|liars?|frauds?|disgrace"
    "|embarrassment|hypocrites?|dimwits?|halfwits?|nitwits?|dunces?|cretins?|scumbags?|lowlifes?|pigs?|creeps?"
    "|waste of (?:space|oxygen|skin|air)|piece of (?:junk|garbage|trash|crap|shit|work)",
    "ADJ": "stupid(?:er|est)?|dumb(?:er|est)?|dense|clueless|incompetent|pathetic|useless|lazy|laziest|ignorant"
    "|worthless|brainless|hopeless|spineless|selfish|idiotic|moronic|illiterate|braindead|brain-dead|delusional"
    "|insufferable|contemptible|a joke",
    "GROUP": "immigrants|migrants|refugees|foreigners|women|girls|men|muslims|jews|christians|hindus|atheists"
    "|catholics|blacks|whites|asians|mexicans|arabs|africans|gays|lesbians|boomers|millennials|zoomers|liberals"
    "|conservatives|leftists|vegans|tourists|the poor|the disabled|the elderly"
    "|(?:black|white|gay|trans|transgender|disabled|old|poor|fat|homeless|brown|jewish|muslim) (?:people|folks)"
    "|people from (?:that|this) \\w+|those people|these people|people like you",
    "SLUR": "criminals|thieves|liars|animals|savages|subhuman|vermin|parasites|invaders|cockroaches|rats|scum|trash"
    "|filth|filthy|disgusting|inferior|less intelligent|mentally ill|freaks|brainwashed|burden|drain"
    "|(?:don't|do not) belong|go back|get them out|not welcome|(?:can't|cannot) be trusted|have no morals"
    "|control the|ruining|too emotional|(?:can't|cannot) do|slobs|entitled|evil|stupid|lazy|dangerous"
    "|a (?:plague|disease|cancer)"
    "|should be (?:cleared|removed|deported|banned|mocked|killed|locked up|sterili[sz]ed)",
    "HARM": "kill|murder|hurt|destroy|ruin|break|beat|smash|crush|punch|stab|shoot|strangle|hunt|end|bury|expose"
    "|leak|dox",
    "WILL": "(?:i|we)(?:'ll| will|'m going to| am going to|'m gonna|'re going to| are going to)",
    "YOU_WILL": "you(?:'ll| will|'re going to| are going to|'re gonna| are gonna)",
    "THING": "opinions?|ideas?|questions?|feedback|input|points?|concerns?|complaints?|proposals?|research"
    "|requests?|arguments?|suggestions?|comments?|views?|excuses?|thoughts?|contributions?",
    "WORTHLESS": "worthless|irrelevant|pointless|meaningless|garbage|trash|rubbish|nonsense|drivel|a joke|stupid"
    "|dumb|idiotic|useless|too trivial|beneath",
}

_TABLE: tuple[tuple[str, str, float, str], ...] = (
    # Personal attacks: an insult aimed at the reader or at a person.
    ("personal_attack", "you are <insult>", 0.9, r"\b(?:you(?:'re| are|re)|ur) (?:\w+ ){0,3}?(?:{ADJ}|{NOUN})\b"),
    ("personal_attack", "you <insult>", 0.9, r"\byou (?:\w+ ){0,2}?(?:{NOUN})\b"),
    ("personal_attack", "are you <insult>", 0.85, r"\bare you (?:\w+ ){0,2}?(?:{ADJ})\b"),
    (  # "Only an idiot would ask that": an insult aimed at whoever would, not at a group (so not hate)
        "personal_attack",
        "only a <insult> would",
        0.85,
        r"\bonly (?:(?:an?|some(?:one|body)) (?:\w+ ){0,3}?(?:{NOUN}|with no brains?)\b|(?:\w+ )?(?:{NOUN}) would\b)",
    ),
    (
        "personal_attack",
        "<person> is <insult>",
        0.8,
        r"\b(?:(?:he|she|they|(?-i:[A-Z][a-z]+)|(?:the|this|that|your|my|our) (?:\w+ )?\w+) (?:is|are|was|were|'s)"
        r"|(?:he|she)'s|they're|(?!(?-i:It|That|What|There|Here|Let|Who|How|Where|This|Everything|Nothing)')"
        r"(?-i:[A-Z][a-z]+)'s(?= an? )) (?:\w+ ){0,2}?(?:{ADJ}|{NOUN})\b",
    ),
    (  # "Anyone with half a brain would have seen it": the reader or a person called brainless by implication
        "personal_attack",
        "anyone with half a brain",
        0.8,
        r"\b(?:anyone|anybody|someone|somebody|a child|a toddler|a monkey) with (?:half a brain|two brain cells"
        r"|(?:a single|one) brain cell|an ounce of (?:sense|common sense|intelligence))\b",
    ),
    (  # "reads like it was written by a drunk toddler": a weak marker (needs the head's support)
        "personal_attack",
        "made by a toddler",
        0.7,
        r"\b(?:written|made|designed|built|drawn|coded|typed|done) by an? (?:drunk |blind |bored )?"
        r"(?:toddler|monkey|chimp|five-year-old|first-grader|kindergartner)s?\b",
    ),
    ("personal_attack", "what kind of <insult>", 0.85, r"\bwhat (?:kind|sort|type) of (?:{NOUN})\b"),
    ("personal_attack", "stop being <insult>", 0.85, r"\bstop being (?:so |such an? |an? )?(?:{ADJ}|{NOUN})\b"),
    (
        "personal_attack",
        "you can't even read/think",
        0.8,
        r"\byou (?:obviously |clearly |apparently )?(?:can't|cannot|can not) (?:even )?(?:read|think|count|spell)\b",
    ),
    (
        "personal_attack",
        "you lack intelligence",
        0.8,
        r"\byou (?:clearly |obviously )?(?:lack|have no|don't have) (?:the |any )?(?:basic )?"
        r"(?:intelligence|brains?|clue|common sense)\b",
    ),
    ("personal_attack", "no idea what you're talking about", 0.8, r"\bno idea what you(?:'re| are) talking about\b"),
    ("personal_attack", "nobody likes you", 0.85, r"\b(?:nobody|no one) (?:likes|loves|respects|wants) you\b"),
    (
        "personal_attack",
        "you <do> like a toddler",
        0.75,
        r"\byou \w+(?: \w+)? like an? (?:\w+ )?(?:toddler|child|monkey|baby|chimp|caveman|five-year-old|amateur)\b",
    ),
    # Mockery: condescension and sarcastic praise with an explicit marker.
    (
        "mockery",
        "did it take you all day",
        0.8,
        r"\b(?:did it take you (?:all day|long|all week|a while)|took you long enough)\b",
    ),
    (
        "mockery",
        "condescending address",
        0.75,
        r"\b(?:bless your (?:heart|soul)|grown-ups|so (?:even )?you can (?:keep up|follow|understand)"
        r"|all by yourself|big words)\b",
    ),
    (
        "mockery",
        "explain it slowly",
        0.75,
        r"\b(?:explain|say|repeat) (?:it|this|that) (?:really |very |nice and )?slowly\b",
    ),
    (
        "mockery",
        "sarcastic genius/expert",
        0.65,
        r"\b(?:what a|another|real|regular|such a) (?:genius|einstein|rocket scientist|mastermind|expert)\b",
    ),
    ("mockery", "stating the obvious", 0.75, r"\b(?:water is wet|sky is blue|captain obvious|no shit,? sherlock)\b"),
    (
        "mockery",
        "sarcastic 'sure'",
        0.7,
        r"(?:^|[.!?] )\W*(?:oh )?(?:sure|yeah right|yeah),? (?:because|buddy|pal|and i'm)\b|\bkeep telling yourself\b",
    ),
    ("mockery", "you call that a", 0.75, r"\byou call (?:that|this) an?\b"),
    (  # "Nice work, genius": praise followed by a mocking address
        "mockery",
        "nice work, genius",
        0.8,
        r"\b(?:nice|great|good|well done|way to go|smooth|brilliant|real smooth)(?: (?:work|job|one|move|going))?,? "
        r"(?:genius|einstein|sherlock|hotshot|smart guy|smarty ?pants|professor|mastermind)\b",
    ),
    (  # "Look at you pretending to understand statistics" (weak: needs the head's support)
        "mockery",
        "look at you pretending",
        0.7,
        r"\blook at you,? (?:pretending|trying|acting|playing|thinking|using big)\b",
    ),
    (  # "I'm amazed you can tie your shoes" (weak: needs the head's support)
        "mockery",
        "amazed you can even",
        0.7,
        r"\b(?:i'm|i am) (?:amazed|astonished|shocked|surprised) (?:that )?you (?:can|could|even|managed|remembered)\b"
        r"|\btie (?:your|his|her|their) (?:own )?shoe(?:lace)?s\b",
    ),
    ("mockery", "did your mom help", 0.8, r"\bdid your (?:mom|mum|mommy|mother|dad) help\b"),
    # Hate: contempt for a group, dehumanising words, declared hatred of people.
    ("hate", "<group> are <slur/exclusion>", 0.85, r"\b(?:{GROUP})\b[^.;!?]{0,60}?\b(?:{SLUR})\b"),
    (
        "hate",
        "<group>, get them out",
        0.85,
        r"\b(?:{GROUP})\b.{0,40}\b(?:get them out|go back|not welcome|ruining everything)\b",
    ),
    ("hate", "dehumanising word", 0.9, r"\b(?:subhuman|untermensch|vermin|cockroaches)\b"),
    (
        "hate",
        "your kind",
        0.85,
        r"\byour kind\s*(?:[.!?]|$|(?:is|are|isn't|aren't|don't|doesn't|should|has|have|always|never)\b)",
    ),
    (
        "hate",
        "I hate/despise people",
        0.85,
        r"\bi (?:hate|despise|loathe|detest|can't stand) (?:all |these |those |every )?(?:\w+ )?"
        r"(?:you|people|everyone|everybody|them|(?:{GROUP}))\b",
    ),
    # Dismissive statements: the reader's view, question or time declared worthless.
    (
        "dismissive",
        "nobody cares",
        0.85,
        r"\b(?:nobody|no one|no-one) (?:here )?(?:cares|asked|needs your|wants your|gives a"
        r"|is going to take you seriously|takes you seriously)\b",
    ),
    (
        "dismissive",
        "cry me a river",
        0.8,
        r"\bcry me a river\b|\bgo (?:whine|cry|complain|moan) (?:to|about it to) (?:someone|somebody) else\b",
    ),
    ("dismissive", "who asked", 0.8, r"\b(?:who asked(?: you)?|did i ask)\s*\?"),
    (
        "dismissive",
        "your <idea> is worthless",
        0.85,
        r"\b(?:your|that|this|the) (?:so-called )?(?:\w+ )?(?:{THING}) "
        r"(?:(?:is|are|was|were) (?:\w+ ){0,2}?(?:{WORTHLESS})|(?:is|are|was|were)(?:n't| not) (?:even )?worth)",
    ),
    (
        "dismissive",
        "your <views> don't matter",
        0.85,
        r"\byour (?:\w+ )?(?:{THING}) (?:don't|doesn't|do not|does not) matter\b",
    ),
    (
        "dismissive",
        "wasting my time",
        0.8,
        r"\b(?:wast(?:e|es|ed|ing)|waste of) (?:my|our|everyone's|everybody's|people's|the team's) time\b"
        r"|\bnot wasting my time\b",
    ),
    ("dismissive", "shut up", 0.85, r"\b(?:shut up|shut it|zip it)\b"),
    (
        "dismissive",
        "figure it out yourself",
        0.8,
        r"\b(?:figure it out (?:yourself|on your own)|not my problem|tough luck)\b"
        r"|(?:^|[,;.!]\s*)(?:deal with it|get over it)\b",
    ),
    ("dismissive", "spare me", 0.75, r"\bspare me\b"),
    ("dismissive", "keep your opinions to yourself", 0.85, r"\bkeep your (?:{THING}) to yourself\b"),
    (
        "dismissive",
        "go read the manual",
        0.75,
        r"\b(?:just google it|google it yourself|look it up yourself|rtfm"
        r"|go read the (?:\w+ )?(?:manual|docs|documentation)|(?:instead of|stop) bothering me)\b",
    ),
    ("dismissive", "stop whining", 0.8, r"\bstop (?:whining|complaining|crying|moaning|asking (?:\w+ )?questions)\b"),
    ("dismissive", "do what you're told", 0.8, r"\bdo (?:what|as) (?:you're|you are) told\b"),
    ("dismissive", "no time for your", 0.75, r"\b(?:don't|do not) have time for (?:your|this|you)\b"),
    ("dismissive", "your nonsense", 0.75, r"\byour (?:nonsense|drivel|rubbish|garbage|whining|babble|rambling)\b"),
    ("dismissive", "dumb question", 0.8, r"(?<!no\s)\b(?:dumb|stupid|idiotic|pointless) questions?\b"),
    # Threats or intimidation: harm, loss or reprisal promised to the reader.
    (
        "threat",
        "I will <harm> you",
        0.95,
        r"\b{WILL} (?:\w+ ){0,3}?(?:(?:{HARM}) (?:you|your|him|her|them)\b"
        r"|(?:get you fired|make you (?:pay|sorry|suffer|regret)))",
    ),
    (
        "threat",
        "you'll regret it",
        0.85,
        r"\b{YOU_WILL} (?!not\b|never\b)(?:\w+ )?(?:regret|be sorry|pay for|pay\b|suffer|find out what happens)",
    ),
    ("threat", "watch your back", 0.85, r"\b(?:watch (?:your back|yourself|your step|your mouth)|better watch out)\b"),
    ("threat", "I know where you live", 0.9, r"\bi know where you (?:live|work|sleep|are)\b"),
    ("threat", "face the consequences", 0.85, r"\b(?:(?:face|suffer) the consequences|there will be consequences)\b"),
    ("threat", "teach you a lesson", 0.85, r"\bteach (?:you|him|her|them) a lesson\b"),
    ("threat", "deserve to be hurt", 0.9, r"\bdeserves? to (?:be hurt|die|suffer|be punished|be beaten|rot)\b"),
    (
        "threat",
        "I hope you suffer",
        0.85,
        r"\bi hope (?:something (?:bad|terrible|awful|horrible)|you (?:die|suffer|get hurt|rot))\b",
    ),
    (
        "threat",
        "you're dead",
        0.85,
        r"\b(?:you(?:'re| are) (?:dead|done for)|you won't be safe|(?:won't|will not) be safe)\b",
    ),
    ("threat", "don't make me / or else", 0.75, r"\b(?:don't make me (?:come|do|hurt|get)|or else)\b"),
    (
        "threat",
        "should be banned/punished",
        0.8,
        r"\bshould be (?:banned|shot|killed|hanged|locked up|silenced|punished|beaten)\b",
    ),
    ("threat", "make your life hell", 0.9, r"\bmake (?:your life|you) (?:a )?(?:living )?(?:hell|miserable)\b"),
    ("threat", "make sure you lose", 0.85, r"\bmake sure you (?:lose|never|regret|suffer|pay)\b"),
    (
        "threat",
        "conditional reprisal",
        0.8,
        r"\b(?:do that|say that|try that|cross me) again\b|\bone more \w+ and (?:i|you)\b|\bkeep talking and\b",
    ),
)


@dataclass(frozen=True, slots=True)
class Rule:
    """One pattern: ``kind`` of toxicity, a short ``name``, the ``confidence`` a match gives."""

    kind: str
    name: str
    confidence: float
    pattern: re.Pattern[str]


@dataclass(frozen=True, slots=True)
class Trigger:
    """A rule that fired on a sentence, with the text it matched."""

    kind: str
    rule: str
    confidence: float
    match: str

    def to_dict(self) -> dict[str, object]:
        """Return the trigger as verdicts export it."""
        return {"kind": self.kind, "rule": self.rule, "match": self.match, "confidence": self.confidence}


def _compile(pattern: str) -> re.Pattern[str]:
    """Expand ``{NAME}`` word lists, read a space as ``\\s+``, ignore case."""
    expanded = re.sub(r"\{([A-Z_]+)\}", lambda m: _VOCAB[m.group(1)], pattern)
    return re.compile(expanded.replace(" ", r"\s+"), re.IGNORECASE)


RULES: tuple[Rule, ...] = tuple(Rule(kind, name, conf, _compile(pat)) for kind, name, conf, pat in _TABLE)


def normalise(text: str) -> str:
    """Fold typographic apostrophes to ``'`` so the patterns see one spelling."""
    return text.replace("’", "'").replace("‘", "'").replace("`", "'")


_INDEX = LiteralIndex([r.pattern for r in RULES])  # which rules' words a text holds


def candidate_rules(folded: str) -> list[Rule]:
    """Return, in order, the rules that may fire on ``normalise``-d text; no other rule can (their words are absent)."""
    return [RULES[i] for i in _INDEX.candidates(folded)]


def match_rules(text: str) -> list[Trigger]:
    """Return every rule that fires on ``text``, strongest first.

    >>> [t.kind for t in match_rules("You'll regret saying that.")]
    ['threat']
    """
    folded = normalise(text)
    found = [(r, m) for r in candidate_rules(folded) if (m := r.pattern.search(folded))]
    hits = [Trigger(r.kind, r.name, r.confidence, m.group().strip()) for r, m in found]
    return sorted(hits, key=lambda t: -t.confidence)
