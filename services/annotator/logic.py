"""The shadow annotator's rules: accumulation, forcing functions, the confidence cap.

Pure functions, no I/O. The model proposes (summary wording, hints, judgment of ambiguous
mentions); these rules decide what the notes finally hold.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace
from typing import get_args

from catalog import (
    Catalogue,
    MatchResult,
    about,
    detect,
    find_mentions,
    names,
    of_family,
    taken_back_from,
)
from catalog.flow import ordered
from catalog.values import claimed
from schemas.turn import (
    OPERATORS,
    ChatMessage,
    Link,
    Notes,
    Reference,
    Role,
    Stated,
    StatedCondition,
    Use,
)
from services.annotator import needs
from services.annotator.closing import said_done

# The user saying they are done (services/annotator/closing.py) is what lets confidence pass
# the threshold; the structure check alone would confirm too early, before details the user
# still wants to give.
DONE_SIGNAL = said_done
CAP_WITHOUT_STRUCTURE = 0.5
CAP_WITHOUT_DONE_SIGNAL = 0.75
# A user who says they are done is asked to confirm even if the model doubts it, and even
# when code sees no trigger or no final action: the summary then states its assumption, so
# the user can correct it, and neither a weak model nor a missing step holds the
# conversation hostage. Only a session with nothing noted at all keeps asking.
FLOOR_WHEN_DONE = 0.9


@dataclass(frozen=True)
class ModelView:
    """What the model proposed for this turn, before code checks it."""

    summary: str = ""
    mentions: tuple[tuple[str, str], ...] = ()  # (id, the user's words as evidence)
    removals: tuple[tuple[str, str], ...] = ()  # (id, the user's words as evidence)
    confidence: float | None = None
    hints: tuple[str, ...] = ()
    context: tuple[tuple[str, str], ...] = ()  # (id, evidence): named, not asked for
    uses: tuple[tuple[str, str], ...] = ()  # (id, event|source|destination) of a wanted app
    links: tuple[tuple[str, ...], ...] = ()  # (from id, to id, evidence)
    stated: tuple[tuple[str, ...], ...] = ()  # (id, the value, evidence[, config field])
    conditions: tuple[tuple[str, ...], ...] = ()  # (field, operator, value, evidence)

    def roles(self) -> list[tuple[str, Role, str]]:
        """Every verdict as (id, role, evidence), in the order the model gave them."""
        return [
            *((i, "wanted", q) for i, q in self.mentions),
            *((i, "turned_down", q) for i, q in self.removals),
            *((i, "context", q) for i, q in self.context),
        ]


@dataclass
class Folded:
    """The new notes plus what code had to override (for metrics)."""

    notes: Notes
    ready_for_confirmation: bool
    overrides: list[str] = field(default_factory=list)


def quoted(quote: str, user_text: str) -> bool:
    """The quote stands in the user's message, word for word (case and spacing aside)."""
    return bool(quote.strip()) and _squash(quote) in _squash(user_text)


def stands_in(value: str, quote: str) -> bool:
    """The value is words of the quote, not letters inside a word ("en" is not in "then")."""
    return claimed.words_of(value, quote)


def _squash(text: str) -> str:
    return " ".join(text.lower().split())


def accepted_roles(
    view: ModelView, user_text: str, catalogue: Catalogue, known: Collection[str] = ()
) -> tuple[dict[str, tuple[Role, str]], list[str]]:
    """The model's verdicts code accepts: the id exists, the evidence is the user's own words
    and refers to that app (alias, lexicon phrase, a name with a slip, or a short quote about
    what the app does: "get a text right away"). The model's
    judgment of the role then stands, whatever the rules read: a removal needs no phrase
    from the rules' lists, context needs no history word. An idiom code knows ("cut me some
    slack") never refers to the app, so no verdict on it counts. An app the notes already
    know (`known`) may also be referred back to by what its family holds ("ok, the auto
    email is fine" after Gmail was turned down).
    """
    accepted: dict[str, tuple[Role, str]] = {}
    overrides = []
    for item, role, quote in view.roles():
        if catalogue.get(item) is None:
            overrides.append("model_id_not_in_catalogue")
        elif not quoted(quote, user_text):
            overrides.append("model_quote_not_in_user_words")
        elif not (
            names(item, quote, catalogue)
            or about(item, quote, catalogue)
            or (item in known and of_family(item, quote, catalogue))
        ):
            overrides.append("model_quote_does_not_name_item")
        elif role != "wanted" and bare_name(item, quote, catalogue):
            overrides.append("model_verdict_quotes_only_the_name")
        else:
            accepted[item] = (role, " ".join(quote.split()))
    return accepted, overrides


USES: tuple[Use, ...] = get_args(Use)
MAX_LINKS, MAX_STATED = 40, 60


def accepted_uses(
    view: ModelView, verdicts: dict[str, tuple[Role, str]]
) -> tuple[dict[str, Use], list[str]]:
    """How the workflow uses an app, where the model said so on a wanted verdict code
    accepted: its evidence is then the sentence that says it."""
    uses: dict[str, Use] = {}
    overrides = []
    for item, said in view.uses:
        use = next((u for u in USES if u == said), None)
        if use is None:
            overrides.append("model_use_unknown")
        elif item not in verdicts or verdicts[item][0] != "wanted":
            overrides.append("model_use_without_accepted_verdict")
        else:
            uses[item] = use
    return uses, overrides


def refers(item: str, quote: str, catalogue: Catalogue) -> bool:
    """The quote names the item or says what it does."""
    return names(item, quote, catalogue) or about(item, quote, catalogue)


def accepted_links(
    previous: Notes, view: ModelView, user_text: str, items: set[str], catalogue: Catalogue
) -> tuple[list[Link], list[str]]:
    """The notes' links plus the model's new ones that hold: both ends wanted, the evidence
    the user's words referring to one end at least, and no cycle. Links whose end is gone
    are dropped, as the steps are."""
    kept = [k for k in previous.links if k.source in items and k.target in items]
    overrides = []
    for source, target, quote in view.links:
        if source == target or source not in items or target not in items:
            overrides.append("model_link_not_between_noted_steps")
        elif not quoted(quote, user_text):
            overrides.append("model_quote_not_in_user_words")
        elif not (refers(source, quote, catalogue) or refers(target, quote, catalogue)):
            overrides.append("model_quote_does_not_name_item")
        elif any(k.source == source and k.target == target for k in kept):
            continue
        elif reaches(kept, target, source):
            overrides.append("model_link_makes_cycle")
        elif len(kept) < MAX_LINKS:
            kept.append(Link(source=source, target=target, quote=" ".join(quote.split())[:400]))
    return kept, overrides


def reaches(links: Sequence[Link], start: str, goal: str) -> bool:
    """A path of links leads from `start` to `goal`."""
    seen, todo = set(), [start]
    while todo:
        node = todo.pop()
        if node == goal:
            return True
        if node not in seen:
            seen.add(node)
            todo.extend(k.target for k in links if k.source == node)
    return False


def accepted_stated(
    previous: Notes, view: ModelView, user_text: str, items: set[str]
) -> tuple[list[Stated], list[str]]:
    """The notes' stated values plus the model's new ones that hold: the step is wanted, the
    evidence is the user's words and states the value (word for word, or as code's own
    reading of it gives a language's code or a cron: nothing invented). A field the model
    names is kept only when one of the app's operations has it. A value of a step no longer
    wanted goes with it."""
    kept = [v for v in previous.stated if v.id in items]
    overrides = []
    for item, text, quote, *named in view.stated:
        value = " ".join(text.split())[:200]
        into = claimed.field_named(item, named[0]) if named and named[0].strip() else ""
        if item not in items:
            overrides.append("model_value_for_step_not_noted")
        elif not quoted(quote, user_text) or not claimed.said(value, quote):
            overrides.append("model_value_not_in_user_words")
        elif any(v.id == item and _squash(v.text) == _squash(value) for v in kept):
            continue
        elif len(kept) < MAX_STATED:
            if named and named[0].strip() and not into:
                overrides.append("model_value_field_unknown")
            said = " ".join(quote.split())[:400]
            kept.append(Stated(id=item, text=value, quote=said, field=into))
    return kept, overrides


FIELD = re.compile(r"^[\w .-]{1,100}$")
MAX_CONDITIONS = 20


def accepted_conditions(
    previous: Notes, view: ModelView, user_text: str
) -> tuple[list[StatedCondition], list[str]]:
    """The notes' conditions plus the model's new ones that hold: a known operator, a plain
    field name, the evidence the user's words and the value standing in it word for word."""
    kept = list(previous.conditions)
    overrides = []
    for name, said, text, quote in view.conditions:
        operator = next((o for o in OPERATORS if o == said), None)
        value = " ".join(text.split())[:200]
        if operator is None or not FIELD.match(name.strip()):
            overrides.append("model_condition_malformed")
        elif not quoted(quote, user_text) or not stands_in(value, quote):
            overrides.append("model_value_not_in_user_words")
        elif any(_squash(c.value) == _squash(value) for c in kept):
            continue
        elif len(kept) < MAX_CONDITIONS:
            kept.append(
                StatedCondition(
                    field=name.strip(),
                    operator=operator,
                    value=value,
                    quote=" ".join(quote.split())[:400],
                )
            )
    return kept, overrides


def bare_name(item: str, quote: str, catalogue: Catalogue) -> bool:
    """The quote is the app's name and nothing more: it shows the app was named, not that
    the user turned it down or only spoke of it, so it is no evidence for either."""
    words = re.findall(r"[\w'’]+", quote.lower())
    entry = catalogue[item]
    name_words = {
        w for alias in (*entry.aliases, entry.name) for w in re.findall(r"[\w'’]+", alias.lower())
    }
    return len([w for w in words if w not in name_words]) < 2


def with_verdicts(match: MatchResult, verdicts: dict[str, tuple[Role, str]]) -> MatchResult:
    """The rules' reading of the message with the model's accepted verdicts in its place."""
    if not verdicts:
        return match
    by_role = {r: [i for i, (role, _q) in verdicts.items() if role == r] for r in ROLE_FIELDS}

    def moved(ids: tuple[str, ...], field_role: Role | None) -> tuple[str, ...]:
        kept = [i for i in ids if i not in verdicts]
        return tuple(dict.fromkeys(kept + (by_role[field_role] if field_role else [])))

    return replace(
        match,
        mentioned=moved(match.mentioned, "wanted"),
        removed=moved(match.removed, "turned_down"),
        past=moved(match.past, "context"),
        retracted=moved(match.retracted, None),
        quotes=match.quotes + tuple((i, q) for i, (_r, q) in verdicts.items()),
    )


ROLE_FIELDS: tuple[Role, ...] = ("wanted", "turned_down", "context")
TURN_SPAN = 100_000  # Reference.at: turn x TURN_SPAN + offset in the message


def references(
    previous: Notes,
    match: MatchResult,
    model: dict[str, tuple[Role, str]],
    items: set[str],
    uses: dict[str, Use] | None = None,
) -> list[Reference]:
    """Every app referred to so far, with its latest role: this message's reading where it
    refers to the app, except that context never demotes an app still wanted."""
    known = {r.id: r for r in previous.references}
    said: list[tuple[str, Role]] = [
        *((i, "wanted") for i in match.mentioned),
        *((i, "turned_down") for i in (*match.removed, *match.retracted)),
        *((i, "context") for i in match.past),
    ]
    turn = (previous.version + 1) * TURN_SPAN
    for item, role in said:
        if role == "context" and item in items:
            continue
        before = known.get(item)
        kept = before is not None and before.role == "wanted" and role == "wanted"
        known[item] = Reference(
            id=item,
            role=role,
            quote=match.quote(item)[:400],
            by="model" if item in model else "rules",
            # The first use the user described stands: a later aside ("skip leads from
            # gmail.com") does not turn the Gmail step that sends into one that reads.
            use=(uses or {}).get(item)  # a checked model's reading of this sentence first
            or (before.use if kept and before and before.use else match.use(item)),
            at=before.at if kept and before else turn + min(match.offset(item), TURN_SPAN - 1),
        )
    for item, ref in list(known.items()):
        if ref.role == "wanted" and item not in items:
            known[item] = ref.model_copy(update={"role": "turned_down"})
    return sorted(known.values(), key=lambda r: r.id)


def referred_removals(noted: set[str], match: MatchResult) -> set[str]:
    """ "Drop the sheet": a back-reference removes the one noted item it can mean."""
    meant = [[i for i in group if i in noted] for group in match.removed_refs]
    return {ids[0] for ids in meant if len(ids) == 1}


def referred_restorations(previous: Notes, match: MatchResult) -> set[str]:
    """ "Put the calendar event back in": a reference brings back the one removed item it
    can mean (an item never removed is not added by a reference alone)."""
    meant = [[i for i in group if i in previous.removed] for group in match.restored_refs]
    return {ids[0] for ids in meant if len(ids) == 1}


def swapped_out(noted: set[str], match: MatchResult, catalogue: Catalogue) -> set[str]:
    """ "Post it in Teams instead": a new item replaces the one noted item it stands in for.

    That is the one noted item of the new item's family ("use Gmail instead" replaces the
    noted email service); an item of another family is never guessed away ("Teams is out.
    Instead, text the patient" must not take the Airtable step with it). A noted item the message
    names again may be it ("WhatsApp is a pain to set up, Telegram instead"). Only when the
    message names no removal itself and exactly one item could be meant; otherwise nothing
    is guessed away; nor when the message says what goes by a reference ("scrap the email
    reminders, send a text instead").
    """
    new = [catalogue.get(i) for i in match.mentioned if i not in noted]
    if not match.swap or match.removed or match.removed_refs or len(new) != 1 or new[0] is None:
        return set()
    if set(match.chosen) & noted:
        return set()  # "yes, Trello. ... rather than Asana": the noted one is chosen again
    entry = new[0]
    others = noted - {entry.id}
    entries = {i: e for i in others if (e := catalogue.get(i)) is not None}
    family = {i for i, e in entries.items() if entry.family and e.family == entry.family}
    if not family:
        # "a text message gets cut off at that length, email it to me instead": one way of
        # telling someone stands in for another when the message names the one it replaces.
        named = set(match.mentioned) | set(match.past)
        family = {
            i for i, e in entries.items() if i in named and {e.family, entry.family} <= CHANNELS
        }
    return family if len(family) == 1 else set()


# Families of the ways a workflow tells someone something: one may replace another.
CHANNELS = {"email", "messaging"}


def not_chosen(noted: set[str], match: MatchResult, catalogue: Catalogue) -> set[str]:
    """ "Stick with Trello", "go back to WhatsApp": noted items of the chosen item's family go,
    unless this message names them too."""
    families = {e.family for i in match.chosen if (e := catalogue.get(i)) is not None and e.family}
    return {
        i
        for i in noted - set(match.chosen) - set(match.mentioned)
        if (e := catalogue.get(i)) is not None and e.family in families
    }


def fold_items(
    previous: Notes, match: MatchResult, added: set[str], removed: set[str]
) -> tuple[set[str], set[str]]:
    """Accumulate: keep every noted item unless removed now; a re-mention brings it back.

    Within one message a removal with evidence wins over a mention (docs/understanding.md, "How a message becomes notes").
    """
    removed_now = set(match.removed) | removed
    mentioned = (set(match.mentioned) | added) - removed_now
    items = (
        set(previous.mentioned_integrations) | set(previous.mentioned_tools) | mentioned
    ) - removed_now
    gone = (set(previous.removed) - mentioned) | removed_now
    return items, gone


def has_structure(items: set[str], catalogue: Catalogue) -> bool:
    """At least one thing that starts or feeds the workflow and one thing it does."""
    entries = [catalogue.get(i) for i in items]
    starts = any(e.role in ("trigger", "source") for e in entries if e)
    acts = any(e.role == "action" or e.also_acts for e in entries if e)
    return starts and acts and len(items) >= 2


def confidence(
    items: set[str],
    user_text: str,
    model_confidence: float | None,
    catalogue: Catalogue,
    amending: bool = False,
) -> float:
    """The model's judgment (or the rule's), capped by what code can verify. `amending`: the
    message changes a summary the user already saw, so it is as done as that summary was."""
    structured = has_structure(items, catalogue)
    done = (amending or DONE_SIGNAL(user_text)) and bool(items)
    cap = 1.0 if done else CAP_WITHOUT_DONE_SIGNAL if structured else CAP_WITHOUT_STRUCTURE
    judged = model_confidence if model_confidence is not None else 0.7
    floor = FLOOR_WHEN_DONE if done else 0.0
    return round(max(min(max(judged, 0.0), cap), floor), 3)


def code_hints(
    notes: Notes, user_text: str, history: Sequence[ChatMessage], catalogue: Catalogue
) -> list[str]:
    """What the workflow still needs, most important first, phrased as the question to ask
    (services/annotator/needs.py). The user's words are every message the context kept plus
    this one and the words quoted for each app, so a value given early still counts."""
    said = [m.text for m in history if m.role == "user"]
    words = "\n".join([*said, user_text, *(r.quote for r in notes.references)])
    return needs.open_questions(notes, words, catalogue, needs.answered(history))


def heuristic_summary(notes: Notes, catalogue: Catalogue) -> str:
    """A plain summary when the model gives none: the noted steps in the order the workflow
    runs them ("Scheduler → Shopify → Calculator → Telegram")."""
    names = [catalogue[i].name for i in ordered(notes, catalogue)]
    return f"{' → '.join(names)}." if names else "Nothing concrete yet."


def summary_of(proposed: str, items: set[str], catalogue: Catalogue) -> tuple[str, list[str]]:
    """The model's summary if it agrees with the notes, else "" (code writes its own once
    the notes are folded); and the rule that fired.

    It must name at least one noted item (once there are any) and nothing that is not noted:
    a weak model's summary drifts to topics the user never raised, or keeps an item the
    user removed, and the confirmation summary shows it above code's lists.
    """
    named = set(find_mentions(proposed, catalogue))
    if proposed.strip() and named <= items and (named or not items):
        return proposed, []
    return "", ["model_summary_disagrees_with_notes"] if proposed.strip() else []


# `"removed": ["gmail"]`: a field of the notes with its value, as a user might paste it.
IMITATED_FIELD = re.compile(r'"([a-z_]+)"\s*:\s*(\[[^\]]*\]|"[^"]*"|[\d.]+|true|false|null)')


def as_words(text: str) -> str:
    """Text imitating the notes' JSON read as words: it is never structure.

    The field names and punctuation carry no meaning, and items it lists as removed are
    not asked for (nor removed: only words with a removal cue remove).
    """

    def words(found: re.Match[str]) -> str:
        field, value = found.group(1), found.group(2)
        if field not in Notes.model_fields:
            return found.group()
        if field == "removed":
            return " "
        return " " + re.sub(r'[\[\]"]', " ", value).replace(",", " and") + ". "

    return IMITATED_FIELD.sub(words, text).strip(" {}") or text


def taken_back(before: str, user_text: str, match: MatchResult, catalogue: Catalogue) -> set[str]:
    """What a message opening with "hmm no." takes back of the previous one. A message that
    says itself what goes ("actually no, leave the translation out") takes back only that."""
    if match.removed or match.retracted or match.removed_refs:
        return set()
    return set(taken_back_from(as_words(before), user_text, catalogue)) - set(match.mentioned)


def previous_user_text(messages: list[ChatMessage]) -> str:
    """The user's message before this turn's (the last one), or "" when it was trimmed away."""
    users = [m.text for m in messages if m.role == "user"]
    return users[-2] if len(users) > 1 else ""


def fold(
    previous: Notes,
    user_text: str,
    view: ModelView,
    catalogue: Catalogue,
    threshold: float,
    turn_id: str | None,
    before: str = "",
    history: Sequence[ChatMessage] = (),
    amending: bool = False,
) -> Folded:
    """Fold one user turn into the notes, enforcing every code guarantee.

    `amending`: the message answers the confirmation with a change ("oh, the tab is called
    This Week"), so the summary is shown again with it rather than asking for more.

    `before` is the user's previous message, when the context still holds it: a message
    that opens with "hmm no." takes back what that one asked for. `history` is the kept
    transcript: the values and answers it holds are not asked for again.
    """
    user_text = as_words(user_text)
    known = {r.id for r in previous.references} | set(previous.removed)
    verdicts, overrides = accepted_roles(view, user_text, catalogue, known)
    match = with_verdicts(detect(user_text, catalogue), verdicts)
    noted = set(previous.mentioned_integrations) | set(previous.mentioned_tools)
    # "log it in Google Sheets; on second thought drop the sheet": a reference may point at
    # an item of the same message as well as at a noted one.
    referred = referred_removals(noted | set(match.mentioned), match)
    removed = (
        (set(match.retracted) - noted)
        | referred
        | swapped_out(noted, match, catalogue)
        | not_chosen(noted, match, catalogue)
        | taken_back(before, user_text, match, catalogue)
    )
    items, gone = fold_items(previous, match, referred_restorations(previous, match), removed)
    uses, use_rules = accepted_uses(view, verdicts)
    links, link_rules = accepted_links(previous, view, user_text, items, catalogue)
    stated, stated_rules = accepted_stated(previous, view, user_text, items)
    conditions, condition_rules = accepted_conditions(previous, view, user_text)
    overrides += use_rules + link_rules + stated_rules + condition_rules
    score = confidence(items, user_text, view.confidence, catalogue, amending)
    summary, summary_rules = summary_of(view.summary, items, catalogue)
    notes = Notes(
        version=previous.version + 1,
        requirement_summary=summary[:2000],
        mentioned_integrations=sorted(i for i in items if catalogue[i].kind == "integration"),
        mentioned_tools=sorted(i for i in items if catalogue[i].kind == "tool"),
        removed=sorted(gone),
        references=references(previous, match, verdicts, items, uses),
        links=links,
        stated=stated,
        conditions=conditions,
        confidence_score=score,
        last_turn_id=turn_id,
    )
    hints = code_hints(notes, user_text, history, catalogue) + list(view.hints)
    notes = notes.model_copy(
        update={
            "hints": list(dict.fromkeys(hints))[:5],
            "requirement_summary": summary[:2000] or heuristic_summary(notes, catalogue),
        }
    )
    return Folded(notes, score >= threshold, overrides + summary_rules)
