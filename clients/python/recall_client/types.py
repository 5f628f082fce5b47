"""The shapes of Recall's requests and answers, as JSON objects.

Each TypedDict mirrors the Go struct the API encodes (pkg/contract, and
pkg/events for turns; pkg/contract's TestShapesMatchEverywhere holds them to
it): a field the Go side writes with ``omitempty`` is an
optional key here, every other key is always present. Times are RFC 3339
strings as the API sends them; ``attrs``, ``arguments``, ``result`` and
``metadata`` are any JSON, kept as sent. Answers are returned as the decoded
JSON objects, so keys a newer server adds are kept too.
"""

from datetime import datetime
from typing import Any, Dict, List, Optional, TypedDict, Union

# --- turns (pkg/events) ---


class _ToolCallBase(TypedDict):
    name: str


class ToolCall(_ToolCallBase, total=False):
    """A tool call made while producing a turn, with its result kept as JSON."""

    id: str
    arguments: Any
    result: Any
    status: str
    duration_ms: int


class _ItemBase(TypedDict):
    ref: str


class Item(_ItemBase, total=False):
    """One entry of the list shown to the user; ``ref`` is what the assistant
    quotes. Anything else about it (a url, a rating) goes in ``attrs``: the API
    refuses a field an item does not define, naming it."""

    title: str
    attrs: Dict[str, Any]


class _TurnExtras(TypedDict, total=False):
    v: int
    site_id: str
    agent_id: str
    tool_calls: List[ToolCall]
    items: List[Item]
    metadata: Dict[str, Any]


class Turn(_TurnExtras):
    """A chat turn as the API stores it (events.Turn)."""

    id: str
    tenant_id: str
    user_id: str
    session_id: str
    occurred_at: str
    role: str
    content: str


class _TurnInputBase(_TurnExtras):
    user_id: str
    session_id: str
    role: str


class TurnInput(_TurnInputBase, total=False):
    """A turn as the client takes it: ``id`` and ``occurred_at`` are filled in
    when missing (and kept across retries), ``tenant_id`` comes from the
    client's tenant, ``content`` defaults to "" (allowed with tool calls or
    items)."""

    id: str
    tenant_id: str
    occurred_at: Union[str, datetime]
    content: str


class _AcceptedTurnBase(TypedDict):
    id: str
    sequence: int


class AcceptedTurn(_AcceptedTurnBase, total=False):
    """A turn JetStream stored; ``duplicate`` (absent when false) says it had it already."""

    duplicate: bool


# ``for`` is a Python keyword, so the wait's base is declared by call.
_TurnsWaitBase = TypedDict("_TurnsWaitBase", {"for": str, "reached": bool, "waited_ms": int})


class TurnsWait(_TurnsWaitBase, total=False):
    """How a wait of POST /v1/turns ended (``for``: stored or searchable):
    ``reached`` when it held for every accepted turn within the bound;
    ``pending`` the ids it did not hold for, ``dead_lettered`` those a
    worker it waited for gave up on."""

    pending: List[str]
    dead_lettered: List[str]


class _TurnsAcceptedBase(TypedDict):
    accepted: List[AcceptedTurn]


class TurnsAccepted(_TurnsAcceptedBase, total=False):
    """The answer of POST /v1/turns (202); ``wait`` when the request asked to wait."""

    wait: TurnsWait


class _WorkerProgressBase(TypedDict):
    done: bool


class WorkerProgress(_WorkerProgressBase, total=False):
    """Whether one worker has finished with a turn; ``dead_letter`` (the dead
    letter's sequence) when it gave up on it."""

    dead_letter: int


class TurnStatus(TypedDict):
    """Where one turn stands (GET /v1/turns/{id}): each turn-stream worker's
    progress from its consumer's acknowledgement floor; ``summarized`` when
    a summary version has read it."""

    id: str
    sequence: int
    session_id: str
    user_id: str
    stored: bool
    searchable: bool
    summarized: bool
    workers: Dict[str, WorkerProgress]


# --- errors ---


class FieldError(TypedDict):
    """One thing wrong with a request, naming the field ("[1].role", "n", "X-Tenant-ID")."""

    field: str
    message: str


class _ErrorDetailBase(TypedDict):
    code: str
    message: str


class ErrorDetail(_ErrorDetailBase, total=False):
    fields: List[FieldError]
    retry_at: str


# --- sessions and messages (pkg/contract) ---


class _MessageBase(TypedDict):
    id: str
    session_id: str
    user_id: str
    role: str
    content: str
    occurred_at: str
    stored_at: str


class Message(_MessageBase, total=False):
    """A stored turn (contract.Message), with its tool calls, items and metadata as sent."""

    site_id: str
    agent_id: str
    tool_calls: List[ToolCall]
    items: List[Item]
    metadata: Dict[str, Any]


class Summary(TypedDict):
    """One version of a session's summary (contract.Summary)."""

    session_id: str
    user_id: str
    version: int
    from_count: int
    through_count: int
    first_event_id: str
    first_at: str
    last_event_id: str
    last_at: str
    covers_from: str
    covers_to: str
    messages_read: int
    summary: str
    key_topics: List[str]
    model: str
    reason: str
    created_at: str


class _SessionBase(TypedDict):
    session_id: str
    user_id: str
    message_count: int
    system_count: int
    first_message_at: str
    last_message_at: str
    created_at: str
    updated_at: str
    recent_messages: List[Message]
    summary: Optional[Summary]


class Session(_SessionBase, total=False):
    """GET /v1/sessions/{id}: the aggregates, the newest messages (oldest first), the summary."""

    site_id: str
    agent_id: str


class _MessagesPageBase(TypedDict):
    messages: List[Message]
    summary: Optional[Summary]


class MessagesPage(_MessagesPageBase, total=False):
    """One page of GET /v1/sessions/{id}/messages; ``next_cursor`` is absent on the last."""

    next_cursor: str


# --- context (pkg/contract) ---


class Cut(TypedDict):
    """How many entries of a part were left out, and why."""

    reason: str
    count: int


class WindowLimits(TypedDict):
    max_messages: int
    max_chars: int


class PartSpend(TypedDict):
    """The characters each part of the context takes in the prompt (headings and line breaks included), and the framing's."""

    framing: int
    attributes: int
    # Deprecated: ``attributes`` under its old name, the same count. Read
    # ``attributes``: ``profile`` goes in the next minor release.
    profile: int
    list: int
    window: int
    recalled: int
    summaries: int
    facts: int


class Budget(TypedDict):
    """The total character budget (0: none), what the parts used, and what each used."""

    limit: int
    used: int
    parts: PartSpend


class ListEntry(Item):
    """An item of the current list with the number it was shown under."""

    n: int


class _PresentedListBase(TypedDict):
    event_id: str
    occurred_at: str
    count: int
    items: List[ListEntry]


class PresentedList(_PresentedListBase, total=False):
    """The session's current list: the items of its newest turn that presented one."""

    cuts: List[Cut]


class _WindowBase(TypedDict):
    messages: List[Message]
    chars: int


class Window(_WindowBase, total=False):
    truncated: bool
    cuts: List[Cut]


class WeightedFact(TypedDict):
    type: str
    value: str
    display: str
    weight: float
    mention_count: int
    last_mentioned_at: str


class _FactsBase(TypedDict):
    facts: List[WeightedFact]


class Facts(_FactsBase, total=False):
    cuts: List[Cut]


class SessionSummary(TypedDict):
    session_id: str
    summary: str
    key_topics: List[str]
    version: int
    message_count: int
    covers_from: str
    covers_to: str
    last_message_at: str
    model: str


class _SummariesBase(TypedDict):
    previous: List[SessionSummary]


class Summaries(_SummariesBase, total=False):
    current: SessionSummary
    cuts: List[Cut]


class _NoteBase(TypedDict):
    reason: str


class Note(_NoteBase, total=False):
    """Why a search ran short without failing: {"reason": "embedder", "detail": "timeout"}."""

    detail: str


class _RecalledHitBase(TypedDict):
    kind: str
    occurred_at: str
    text: str
    score: float


class RecalledHit(_RecalledHitBase, total=False):
    event_id: str
    session_id: str
    role: str
    truncated: bool


class _RecalledBase(TypedDict):
    query: str
    search: str
    hits: List[RecalledHit]


# A stretch of time, [from, to): RFC 3339 times ("from" is a keyword, hence the call form).
Span = TypedDict("Span", {"from": str, "to": str})


class Recalled(_RecalledBase, total=False):
    cuts: List[Cut]
    notes: List[Note]
    # The times the message names ("last Saturday", "four weeks ago"), as the
    # search read them in the user's time zone; absent when it names none.
    during: List[Span]


class AttributeEntry(TypedDict):
    """One key of the user's attributes as the prompt states it; ``label`` in the prompt's language."""

    key: str
    label: str
    values: List[str]


class _AttributeStatementBase(TypedDict):
    text: str
    at: str
    matched: bool


class AttributeStatement(_AttributeStatementBase, total=False):
    """A self-statement of the user's as the prompt shows it: their words, when, and whether it bears on the message."""

    session_id: str


class _ContextAttributesBase(TypedDict):
    about: List[AttributeEntry]
    requests: List[AttributeEntry]


class ContextAttributes(_ContextAttributesBase, total=False):
    """Who the user is (``about``), what they asked the assistant to do (``requests``), their own statements."""

    statements: List[AttributeStatement]
    cuts: List[Cut]


# Deprecated: the attributes part's names before it was called attributes.
# Use ContextAttributes, AttributeEntry and AttributeStatement: these go in
# the next minor release.
ContextProfile = ContextAttributes
ProfileEntry = AttributeEntry
ProfileStatement = AttributeStatement


class _ContextBase(TypedDict):
    user_id: str
    session_id: str
    lang: str
    limits: WindowLimits
    ttl: str
    budget: Budget
    list: Optional[PresentedList]
    window: Window
    facts: Facts
    summaries: Summaries
    prompt: str


class Context(_ContextBase, total=False):
    """GET/POST /v1/context: the parts and ``prompt``, the block to put in the system prompt."""

    recalled: Recalled
    # Who the user is and what they asked for; absent when nothing is known.
    attributes: ContextAttributes
    # Deprecated: ``attributes`` under its old name, the same value. Read
    # ``attributes``: ``profile`` goes in the next minor release.
    profile: ContextAttributes


# --- search ---


class Neighbor(TypedDict):
    id: str
    role: str
    occurred_at: str
    content: str


class _SearchHitBase(TypedDict):
    kind: str
    source_id: str
    occurred_at: str
    text: str
    score: float


class SearchHit(_SearchHitBase, total=False):
    session_id: str
    agent_id: str
    role: str
    lexical_rank: int
    lexical_score: float
    vector_rank: int
    similarity: float
    time_rank: int
    asked_rank: int
    previous: Neighbor
    next: Neighbor
    earlier: List[Neighbor]
    later: List[Neighbor]


class _SearchResultBase(TypedDict):
    user_id: str
    query: str
    terms: List[str]
    search: str
    hits: List[SearchHit]


class SearchResult(_SearchResultBase, total=False):
    during: List[Span]
    notes: List[Note]


# --- presented lists and seen items ---


class ListInfo(TypedDict):
    event_id: str
    occurred_at: str
    count: int


class Selection(TypedDict):
    """Item ``n`` of the session's current list, exactly as it was sent."""

    session_id: str
    n: int
    item: Item
    list: ListInfo


class Unseen(TypedDict):
    user_id: str
    unseen: List[str]
    marked: int


class SeenItem(Item):
    """An item the user was shown: title and attrs of its newest showing."""

    times_shown: int
    first_seen_at: str
    last_seen_at: str
    last_event_id: str
    last_session_id: str


class Seen(TypedDict):
    user_id: str
    items: List[SeenItem]


# --- interests ---


class InterestFact(TypedDict):
    """An interest fact with its stored base weight and its weight now, by which the list is ordered."""

    type: str
    value: str
    display: str
    base_weight: float
    weight: float
    mention_count: int
    last_mentioned_at: str
    expires_at: str
    status: str


class _InterestVectorBase(TypedDict):
    present: bool


class InterestVector(_InterestVectorBase, total=False):
    """The interest vector's metadata; ``values`` only when asked for."""

    dims: int
    model: str
    sources: Dict[str, int]
    computed_from: str
    updated_at: str
    revision: int
    values: List[float]


class _InterestsBase(TypedDict):
    user_id: str
    at: str
    facts: List[InterestFact]
    vector: InterestVector


class Interests(_InterestsBase, total=False):
    """The interest facts and vector gathered from what the user talks about."""

    cuts: List[Cut]


class InterestsRefresh(TypedDict):
    """A queued recompute of a user's interest vector."""

    user_id: str
    requested_at: str
    duplicate: bool


# Deprecated: the former names, kept until the next minor release.
Profile = Interests
ProfileFact = InterestFact
ProfileVector = InterestVector
ProfileRefresh = InterestsRefresh


class _RecommendationBase(TypedDict):
    ref: str
    type: str
    title: str
    distance: float
    score: float


class Recommendation(_RecommendationBase, total=False):
    attrs: Dict[str, Any]


class Recommendations(TypedDict):
    user_id: str
    k: int
    model: str
    items: List[Recommendation]


# --- attributes: who the user is and what they asked for ---


class _AttributeValueBase(TypedDict):
    key: str
    group: str
    value: str
    op: str
    source: str
    status: str
    event_id: str
    confidence: float
    valid_from: str


class AttributeValue(_AttributeValueBase, total=False):
    """One value of an attribute key, with where it came from and when it held."""

    item: str
    evidence: List[str]
    session_id: str
    valid_to: str
    ended_by: str


class _AttributesBase(TypedDict):
    user_id: str
    current: List[AttributeValue]


class Attributes(_AttributesBase, total=False):
    """GET /v1/users/{id}/attributes; ``history`` only when asked for."""

    history: List[AttributeValue]


class _AttributeEditBase(TypedDict):
    key: str
    op: str


class AttributeEdit(_AttributeEditBase, total=False):
    """One explicit edit: ``put`` a value (or add an item to a set), or ``remove`` one."""

    value: str


class AttributesAccepted(TypedDict):
    """The answer to an edit (202): the events published."""

    user_id: str
    accepted: List[AcceptedTurn]


# --- webhooks (docs/webhooks.md) ---


class _WebhookCreateBase(TypedDict):
    url: str
    types: List[str]


class WebhookCreate(_WebhookCreateBase, total=False):
    """An endpoint to register: its URL, the change types it wants (a type,
    a prefix such as ``attribute.*``, or ``*``) and its secret (left out:
    the server makes one)."""

    secret: str


class _WebhookBase(TypedDict):
    id: str
    url: str
    types: List[str]
    created_at: str


class Webhook(_WebhookBase, total=False):
    """An endpoint of the tenant; ``secret`` only in the answer that registered it."""

    secret: str


class Webhooks(TypedDict):
    webhooks: List[Webhook]


class _WebhookDeliveryBase(TypedDict):
    change_id: str
    type: str
    user_id: str
    status: str
    attempts: int
    redrives: int
    in_flight: bool
    created_at: str


class WebhookDelivery(_WebhookDeliveryBase, total=False):
    """One change for one endpoint: ``status`` pending, delivered or failed."""

    next_attempt_at: str
    last_status_code: int
    last_error: str
    last_attempt_at: str
    finished_at: str


class WebhookCounts(TypedDict):
    pending: int
    delivered: int
    failed: int


class WebhookDeliveries(TypedDict):
    """An endpoint's newest deliveries and how many it has of each status."""

    webhook_id: str
    counts: WebhookCounts
    deliveries: List[WebhookDelivery]


# --- summaries, deletion ---


class SummarizeRequest(TypedDict):
    from_count: int
    through_count: int
    duplicate: bool


class _SummarizeResultBase(TypedDict):
    session_id: str
    status: str
    summary: Optional[Summary]


class SummarizeResult(_SummarizeResultBase, total=False):
    """``status`` is current (nothing new), queued or summarized (within ``wait``)."""

    request: SummarizeRequest


class ForgetReport(TypedDict):
    """What forgetting a user removed: rows per table, stream messages per stream."""

    tenant_id: str
    user_id: str
    rows: Dict[str, int]
    stream_messages: Dict[str, int]


class _ChangeBase(TypedDict):
    v: int
    id: str
    type: str
    tenant_id: str
    user_id: str
    at: str


class _ChangedFactBase(TypedDict):
    type: str
    value: str
    display: str
    status: str
    source: str
    base_weight: float
    weight: float
    mention_count: int
    first_seen_at: str
    last_mentioned_at: str
    expires_at: str


class ChangedFact(_ChangedFactBase, total=False):
    """The interest fact a fact.* change is about; ``event_id`` (fact.new)
    is the event of its first mention."""

    session_id: str
    event_id: str


class ChangedList(TypedDict):
    """The list a list.presented change is about: the turn that presented
    it, numbered as the user saw it."""

    session_id: str
    event_id: str
    count: int
    items: List[ListEntry]


class Change(_ChangeBase, total=False):
    """One change to what Recall holds about a user, as the change feed
    carries it (recall.changes.<tenant>.<user>): ``attribute`` for the
    attribute.* types, ``forgotten`` for user.forgotten, ``fact`` for
    fact.*, ``summary`` for summary.updated, ``list`` for list.presented."""

    attribute: AttributeValue
    forgotten: ForgetReport
    fact: ChangedFact
    summary: Summary
    list: ChangedList
