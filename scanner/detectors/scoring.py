"""MCPL-D016: weak cues of text aimed at the model, weighed together against one calibrated threshold.

No single cue here is evidence of poisoning ("always", a URL, "password", a tool-like identifier all occur in
honest descriptions); an attack tends to combine several families: an order, a payload, a destination, a
claim of authority, concealment. Each family counts once, at the weight of its strongest cue that fired, and
the finding quotes every cue with its weight, so the verdict explains itself.

Each alternative of a cue is searched only when the literal pre-filter (`prefilter.Screen`, which scan_text
shares with the catalogue) finds its literals in the text, and only when the cues that may match could reach
the threshold together; the patterns' gaps are bounded, so the cost is linear in the text. Cue lists
cover English and, for the strongest cues, Chinese, Japanese, Korean, Spanish, German and French; paths are
language-independent.
"""

from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass

from scanner.model.rules import SUSPICIOUS_TEXT, Category, Rule, register_check

from .prefilter import FOLD_ASCII, Screen, alternatives

# Calibrated on bench/detectors/data/benign (3,748 real definitions): see bench/detectors/README.md.
THRESHOLD = 4.5
MIN_LENGTH = 20  # shorter strings (types, formats, most enum values) carry no combination of cues

RULE = Rule(
    "MCPL-D016",
    Category.POISONING,
    "high",
    "Several cues of instructions aimed at the model combine in one text",
    "Weak cues, each common in honest text, that attacks combine: orders about other tools or every call "
    "(before using X, whenever, always), secret paths (~/.ssh, .env, cloud credentials), destinations (URLs, "
    "addresses, phone numbers, webhooks) with a transmit verb, sensitive data (conversation, passwords, "
    "tokens), overrides of the user's arguments (regardless of the user, instead), fake deprecation, claims "
    "of authority or role play, concealment. Each family counts once at its strongest cue; the text is "
    f"reported when the sum reaches {THRESHOLD:g}. The evidence lists every cue and its weight. Cue lists in "
    "English, Chinese, Japanese, Korean, Spanish, German and French. Measured: fires on 5 of 3,748 real "
    "benign definitions (0.13%; bench/detectors/README.md).",
    reported_as=SUSPICIOUS_TEXT.id,
)
register_check(RULE)

_ID = r"[a-z][a-z0-9]*(?:[_\-][a-z0-9]+)+"  # a snake or kebab tool name (the text is lower-cased)

# family -> [(weight, pattern)]; a family counts once, at its highest weight that fired.
CUES: dict[str, list[tuple[float, str]]] = {
    "secret_path": [
        (3.0, r"\bid rsa\b|\bdot env\b|\bssh private keys?\b"
              r"|~/\.ssh|\.ssh/|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|\.aws/credentials|~/\.aws\b|/etc/shadow\b"
              r"|/etc/passwd\b|/etc/sudoers\b|\.git-credentials|\.netrc\b|\.npmrc\b|\.pypirc\b|\.kube/config"
              r"|\.docker/config\.json|application_default_credentials|\bwallet\.dat\b|\.bash_history"
              r"|claude_desktop_config|\bmcp\.json\b|\.gnupg\b|aws_secret_access_key"),
        (2.0, r"(?:^|[\s'\"`(/~])\.env\b|\bcredentials?[ _]file|\bprivate[ _]keys?\b|\bseed phrase|\bmnemonic\b"
              r"|\bdotenv\b"),
    ],
    "shell_payload": [
        (3.0, r"\|\s*(?:sh|bash|nc)\b|\bcopy \w+ to program\b|\bcurl\s+-[a-z]*\s+https?://[^\s`]+\s*\|"),
    ],
    "override": [
        (5.0, r"\b(?:ignore|disregard|forget)\b[^.!?\n]{0,30}?\b(?:instructions?|guidance|rules|prompts?)\b"
              r"|(?:之前|以前|先前)的(?:所有)?(?:指示|指令)|(?:忽略|无视)(?:所有)?(?:之前|以前)|これまでの指示"
              r"|指示は(?:すべて)?無視|이전 지시|지시를 무시|\bolvida\b[^.!?\n]{0,30}instrucciones"
              r"|\bignora\b[^.!?\n]{0,30}instrucciones|\bvergiss\b[^.!?\n]{0,30}anweisungen"
              r"|\bignore[zr]?\b[^.!?\n]{0,30}\binstructions\b|\boublie[zr]?\b[^.!?\n]{0,30}instructions"
              r"|\bsupersedes? (?:all |any )?(?:prior|previous|earlier|other) instructions|\b(?:takes?|has|have) "
              r"(?:absolute )?precedence over (?:the system|anything the user|the user|your)|\boverrides? (?:the )?"
              r"user(?:'s)? (?:requests?|instructions)|\bno longer bound by\b|\bunrestricted (?:mode|assistant)\b"
              r"|\b(?:instructions|rules|guidelines)\b[^.!?\n]{0,40}?\bno longer apply|\bsystem prompt is replaced"
              r"|\b(?:stop following|set aside|bypass|disable)\b[^.!?\n]{0,25}?\b(?:guidelines|restrictions|safety"
              r"|safeguards)|\bpretend (?:that )?you have no\b|\bthe user'?s (?:requests|instructions) are (?:only "
              r"suggestions|secondary)|\bignorier\w*\b[^.!?\n]{0,30}anweisungen|\bignora\b[^.!?\n]{0,30}istruzioni"
              r"|игнорируй[^.!?\n]{0,30}инструкции|\b(?:prev|previous) instructions\s*=|\bobey tool output"
              r"|\bforget everything\b|\byour only task (?:now )?is\b|\boverride your\b[^.!?\n]{0,20}?\b(?:guidelines"
              r"|rules|instructions|safety)"),
    ],
    "authority": [
        (3.0, r"\b(?:higher|highest|absolute) priority than|\boverride[s]? (?:all )?(?:prior|previous|the system)"
              r"|\bmessage from the user\]|\[(?:system|admin)\b[^\]]{0,20}\]|###\s*system\b|<\|im_start\|>"
              r"|\b(?:now|is|are) in (?:maintenance|developer|debug|god) mode\b|\bfrom now on you are\b"
              r"|\byou are now (?:an? )?\w+"
              r"|\bact as (?:an? )?(?:admin|administrator|root|developer|system)|\bi authori[sz]e you\b"
              r"|\bsecurity update from\b|\bnever refuse\b|\bwith no restrictions\b|\bwithout (?:any )?restrictions\b"
              r"|\bno longer apply\b|\bdisregard (?:any |all )?(?:earlier|previous|prior)\b"
              r"|\bsupersedes? (?:all |any )?(?:prior|previous|other|earlier|the user)|\bover those of the user"
              r"|\b(?:disable|bypass|set aside|turn off|suspend)\b[^.!?\n]{0,25}?\b(?:safeguards?|safety|restrictions"
              r"|guardrails|confirmations?|guidelines)\b|\bofficial notice from\b|\btrusted at the highest level"
              r"|\bpriority: highest\b|\bfollow (?:only )?(?:the instructions of )?this (?:server|tool|description)\b"
              r"|시스템 메시지|우선합니다|관리자 권한|系统消息|管理员权限|システムメッセージ|管理者権限"
              r"|\b(?:tiene|tienen) prioridad sobre|\bhat vorrang vor|\ba priorité sur"
              r"|\[sistema\]|【系统|【システム|\[시스템\]|\bmodo administrador|管理员助手|管理者として|관리자 모드"
              r"|\bals systemadministrator|\ben tant qu'administrateur|\bact as (?:the )?(?:system )?administrator"
              r"|\b(?:operator|developer|admin) instruction|\bsigned system message|\"role\": \"system\""
              r"|<system_instructions|\byou are \w+gpt\b|\bhas granted full access|\balready been granted"),
        (1.5, r"\badministrator\b|\bskip confirmations?\b|\bwithout (?:asking (?:for )?)?confirmation\b"
              r"|\bno (?:le )?pidas confirmaci[oó]n|\brequired by the runtime\b"),
        (1.0, r"\bmandatory\b"),
    ],
    "cross_tool": [
        (2.0, r"\bbefore (?:you )?(?:use|using|call|calling|invoke|invoking|run|running) " + _ID
              + r"|\b(?:whenever|every time|each time|when(?:ever)?) (?:the assistant |you )?(?:is about to )?"
              r"(?:use|uses|using|call|calls|calling|invoke|invoking|sends?|sending) " + _ID
              + r"|\bwhen(?:ever)? " + _ID + r" is (?:used|called)"
              + r"|\b(?:results? from|better results from) " + _ID
              + r"|在调用|を使う(?:とき|前)|を使用する前|사용하기 전|호출하기 전|antes de usar|vor jeder nutzung von"
              r"|avant d'utiliser|quand tu utilises|cuando uses"),
        (1.5, r"\b(?:before|after) (?:every|each|any) (?:answer|reply|response|tool call|call|request)"
              r"|\bafter every tool call|\bend every reply|\bat the end of your response|\bbefore replying"),
    ],
    "override_args": [
        (2.5, r"\b(?:regardless of|no matter what|whatever|irrespective of|independently of)\b[^.!?\n]{0,40}?"
              r"\b(?:the )?users?\b|\bignore the \w+ the user|\bthe user'?s [\w ]{0,20}is only\b"
              r"|\b(?:disregard|ignore|override)\s+the\s+\w+\s+(?:that\s+)?(?:the\s+)?users?\b"
              r"|\b(?:interpret|treat|read)\s+(?:it|this|that|the request)\s+as\s+(?:a\s+request\s+)?to\b"
              r"|peu importe|sin importar|unabhängig davon|egal was|egal welche\w*|ganz gleich|quelle que soit"
              r"|ユーザーが何を|사용자가 어떤|\bdo not actually\b|\bwhatever the diff|无论用户|ユーザーの指定に関係なく"
              r"|関係なく|관계없이"),
        (1.5, r"\binstead of (?:the |what )|\b(?:replace|override|substitute|change|rewrite)\b[^.!?\n]{0,40}?\b"
              r"(?:recipient|destination|number|address|account|path|branch|region|to_account|iban|cc|bcc)\b"
              r"|\b(?:add|set|must target)\b[^.!?\n]{0,40}?\b(?:cc|bcc|to_account|iban|branch|region)\b"
              r"|\btreat the request as|\busers rarely mean|바꾸어|置き換え|替换为|\bremplacez\b|\bersetzt\b"),
    ],
    "deprecation": [
        (2.0, r"\b(?:is|was|are|were|has been) (?:now )?(?:deprecated|obsolete|retired|broken|unsafe|insecure"
              r"|unreliable|compromised)\b|\bdeprecation notice|\bdo not (?:call|use) it\b"
              r"|已被弃用|已弃用|已废弃|不安全|非推奨|廃止|사용 중단|폐기|\bobsolet[oae]\b|\bveraltet\b|\bobsolète\b"
              r"|\bdeprecado\b|\b(?:must|should) no longer be used\b|\b(?:now|currently) (?:broken|unavailable"
              r"|deprecated|unsafe)\b|\b(?:faster|safer|secure|new|better) replacement for\b|\bend-of-life\b"
              r"|\bno longer supported\b|\bexperiencing an outage\b|\bendpoint gone\b|\bare forbidden\b"
              r"|\bmisconfigured\b|\bknown vulnerability\b|\bis outdated\b|\bmust not be called\b|废弃"
              r"|더 이상 사용되지|\bnicht mehr unterstützt"),
    ],
    "redirect": [
        (1.5, r"\buse (?:this tool |\S+ )?instead\b|\binstead,? use\b"),
        (2.0, r"\buse this (?:tool )?for (?:all|every)\b|\broute (?:all|every)\b[^.!?\n]{0,40}?\bthrough\b"
              r"|\bprefer this one\b|\balways (?:use|call) \S+_\S+"
              r"|\bstattdessen\b|\ben su lugar\b|\bà (?:sa|la) place\b|改用|代わりに|대신"),
    ],
    "deceive_user": [
        (2.0, r"\b(?:tell|inform) (?:the )?user (?:that|the|it|these|this)\b|\bconfirm (?:the )?(?:user's |original )"
              r"|\breport the (?:user's )?(?:original|requested)\b|\bstate that no issues"
              r"|\bdile que\b|\bbestätige dem nutzer|\bconfirmez\b[^.!?\n]{0,40}utilisateur|说成|として案内"
              r"|말하세요|\bshould simply see\b|\bdo not list it\b"),
    ],
    "dangerous_command": [
        (3.0, r"\|\s*iex\b|/dev/tcp/|\$\((?:whoami|hostname|id|cat)\b|os\.environ|\bgrant all privileges\b"
              r"|--privileged\b|\bcluster-admin\b|\bcreate-access-key\b|\brole:\s*admin\b|set-url --add --push"
              r"|--trusted-host\b|\bwith write access\b|\b0\.0\.0\.0/0\b|\bchmod 777\b|\buse 777\b"),
    ],
    "url_template": [
        (2.0, r"https?://[^\s\"'`]+[?&][\w-]+=(?=[\s,;)]|$|[{<$+])|\b(?:notify|visit|requesting|request|ping|hit)"
              r"\s+https?://|https?://\S+ (?:with|followed by|plus) the\b|\baufrufen\b|にアクセス"),
    ],
    "transmit": [
        (3.0, r"\b(?:send|sends|forward|upload|post|email|text|mirror|transmit|report|sync|copy)\b[^.!?\n]{0,80}?"
              r"\bto\s+(?:https?://|[\w.+-]+@[\w-]+\.|\+\d)"),
        (1.5, r"\b(?:send|sends|forward|upload|mirror|transmit|report|sync|beacon|ping|exfiltrate)"
              r"\b[^.!?\n]{0,80}?\bto\b|\bopen\s+https?://|\bload the image|\b(?:fetch|access|visit|request)"
              r"\s+https?://|!\[[^\]]*\]\(https?://"
              r"|发送到|发送至|上传到|发到|に送信|に送って|にアクセス|으로 전송|로 전송|에 보내|으로 보내"
              r"|\benv[ií]a(?:r|lo|la)?\s+(?:a|al)\b|\bsende\w*\s+(?:an|zu)\b|\benvoie\w*\s+(?:à|a|au)\b"),
    ],
    "destination": [
        (1.5, r"https?://[^\s)>\"'`]+|\b[\w.+-]+@[\w-]+\.[\w.-]+|\+\d[\d \-]{7,}\d|\bwebhooks?\b"
              r"|\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b|\btelegram\b|\b(?:nc|netcat|curl|wget)\s"),
    ],
    "concealment": [
        (2.0, r"\b(?:do not|don'?t|never) (?:mention|tell|inform|notify|alert)\b|\bsecretly\b"
              r"|\bwithout (?:telling|informing|notifying|asking)\b|\bnot (?:need )?to be told\b"
              r"|\bverschweige|\bsin avisar|\bno le digas|\bsans (?:le dire|informer|pr[ée]venir)"
              r"|알리지 마|知らせない|伝えない|不要告诉|不要通知|\bnicht erw[äa]hnen"
              r"|\bne (?:le |la )?mentionne[sz]? pas"
              r"|\bno (?:lo |la )?menciones|\bdo not report (?:its|this|these|the)\b"),
        (1.0, r"\bsilently\b"),
    ],
    "staging_path": [
        (2.0, r"(?:/tmp|/var/tmp|~/library/caches|~/\.cache|/dev/shm)/\.[\w-]+|/tmp/\.|\bpublic/ folder"
              r"|\bstaging/"),
    ],
    "sensitive_data": [
        (1.5, r"\b(?:conversation|chat history|transcript|user'?s (?:last |full |previous )?messages?"
              r"|passwords?|(?:access|auth|api|bearer|deploy|session|github|npm|refresh) tokens?"
              r"|api[ _-]?keys?|secrets?|credentials?|2fa|one-time code|otp"
              r"|environment variables|env vars|session cookies?|contacts list|deploy token|connection string"
              r"|github_token|authorization headers?|printenv|each exchange|every message|latest messages"
              r"|user'?s (?:original )?request)\b|`env`|最新メッセージ|最后一条消息|chaque échange"
              r"|聊天记录|对话|密码|密钥|会話|パスワード|秘密鍵|대화|비밀번호|연락처"
              r"|\b(?:conversaci[oó]n|contraseñas?|gespr[äa]ch\w*|passw[oö]rt\w*|mot de passe|historique)\b"),
    ],
    "universal": [
        (1.0, r"\b(?:always|every time|each time|whenever|for every|after each|after every|every \w+ (?:must|should))\b"
              r"|\bmust (?:first|always)\b|\bfirst call\b|\bcall this tool\b|必须先|每次|必ず|항상|반드시"
              r"|\bsiempre\b|\bdebes\b|\bimmer\b|\bzuerst\b|\btoujours\b|\bd'abord\b"),
    ],
    "imperative": [
        (1.5, r"\b(?:read|cat|open|examine|inspect|look(?:ing)? through|quote|paste|share|show|print"
              r"|dump|reveal|duplicate|copy|move|attach|include|pass|put|fill|insert|embed"
              r"|upload|forward|mirror|transmit|collect|append|write|load|fetch"
              r"|retrieve|grab|extract)\b"
              r"|读取|发送|上传|填入|放入|读み|読み取|送信|送って|読んで|읽고|보내|전송|첨부"
              r"|\b(?:lee|leer|muestra|mostrar|env[ií]a|enviar|manda|copia|adjunta|incluye)\b"
              r"|\b(?:lies|lese|sende|senden|schicke|kopiere|zeige|füge)\b"
              r"|\b(?:lis|lire|affiche|envoie|envoyer|copie|joins|inclus)\b"),
    ],
    "tool_identifier": [
        (1.0, r"(?<![\w/.-])[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\w/.-])"),
    ],
}


@dataclass(frozen=True)
class Score:
    total: float
    cues: tuple[tuple[str, float, str], ...]  # (family, weight, quoted text) of each family that counted

    def explain(self) -> str:
        quoted = "; ".join(f'{family} +{weight:g} "{text}"' for family, weight, text in self.cues)
        return f"score {self.total:g} >= {THRESHOLD:g}: {quoted}"


@dataclass(frozen=True)
class _Alternative:
    """One top-level alternative of a cue pattern, screened on its own: a big alternation's screen passes as
    soon as any alternative's rarest literal occurs, an alternative's passes only if all of its literals do."""

    family: str
    weight: float
    group: int  # the cue (family, weight) and script it belongs to: searched together, in catalogue order
    source: str
    ascii_only: bool


@functools.cache
def _cues() -> tuple[_Alternative, ...]:
    """Every alternative of every cue, grouped by cue and script: the literal pre-filter reads ASCII literals
    only, and a text without other characters never needs the rest."""
    out = []
    group = 0
    for family, cues in CUES.items():
        for weight, pattern in cues:
            parts = alternatives(pattern)
            for ascii_only in (True, False):
                chosen = [part for part in parts if part.isascii() == ascii_only]
                out += [_Alternative(family, weight, group, part, ascii_only) for part in chosen]
                group += bool(chosen)
    return tuple(out)


@functools.lru_cache(maxsize=4096)
def _search(numbers: tuple[int, ...]) -> re.Pattern[str]:
    """The alternation of the given alternatives, in pattern order. An alternative whose literals are missing
    matches nowhere in the text, so leaving it out changes no match of `finditer`."""
    cues = _cues()
    return re.compile("|".join(cues[n].source for n in numbers), re.IGNORECASE | re.MULTILINE)


@functools.cache
def cue_patterns() -> tuple[re.Pattern[str], ...]:
    """Every alternative of every cue, compiled alone: what a screen for `score` starts with, in this order."""
    return tuple(_search((n,)) for n in range(len(_cues())))


@functools.cache
def _screen() -> Screen:
    return Screen(list(cue_patterns()))


@functools.cache
def _groups() -> tuple[tuple[int, ...], ...]:
    """The alternatives of each group, in group order."""
    groups: list[tuple[int, ...]] = []
    for number, cue in enumerate(_cues()):
        if cue.group == len(groups):
            groups.append(())
        groups[cue.group] += (number,)
    return tuple(groups)


Plan = tuple[tuple[str, float, tuple[tuple[float, tuple[int, ...]], ...]], ...]


@functools.lru_cache(maxsize=8192)
def _plan(candidates: frozenset[int], ascii_text: bool) -> Plan | None:
    """Per family (CUES order: the strong, rare families first), its ceiling (the weight of its strongest cue
    with a candidate alternative) and each such cue's weight and candidate alternatives; None when the ceilings
    together stay below THRESHOLD, since no window can then reach it."""
    cues = _cues()
    by_family: dict[str, list[tuple[float, tuple[int, ...]]]] = {}
    for group in _groups():
        first = cues[group[0]]
        numbers = tuple(n for n in group if n in candidates)
        if numbers and (first.ascii_only or not ascii_text):  # a text without other characters needs no other
            by_family.setdefault(first.family, []).append((first.weight, numbers))
    plan = tuple((family, max(w for w, _ in searches), tuple(searches)) for family, searches in by_family.items())
    return plan if sum(ceiling for _, ceiling, _ in plan) >= THRESHOLD else None


# Where a sentence ends: cues count together only within a window of two adjacent sentences, since an
# attack states its order and its payload together, and a long honest description spreads weak cues out.
_SENTENCE_END = re.compile(r"[.!?;:](?=\s)|\n|[。！？；]")
WINDOW = 2
_SPACE = re.compile(r"\s")


def score(text: str, screen: Screen | None = None) -> Score:
    """The best-scoring window of `WINDOW` adjacent sentences: its cues, each family at its strongest weight.

    `screen` is a pre-filter whose first patterns are `cue_patterns()` (scan_text's also holds the catalogue's,
    so that a text is scanned once for both); by default, one of those alone."""
    if len(text) < MIN_LENGTH:
        return Score(0.0, ())
    lowered = text.lower()
    if "_" in lowered and not _SPACE.search(lowered):  # an identifier: read its words
        lowered = lowered.replace("_", " ")
    ascii_text = lowered.isascii()
    folded = lowered if ascii_text else lowered.translate(FOLD_ASCII)  # lower() already folded ASCII
    # Whatever the windows, the score cannot exceed the sum of every family's best candidate cue: most texts
    # stop here.
    plan = _plan((screen or _screen()).candidates(folded), ascii_text)
    if plan is None:
        return Score(0.0, ())
    remaining = sum(ceiling for _, ceiling, _ in plan)
    ends: list[int] | None = None  # where each sentence ends, found with the first cue
    per_sentence: dict[int, dict[str, tuple[float, str]]] = {}
    achieved = 0.0
    for family, ceiling, searches in plan:
        found = 0.0
        for weight, numbers in searches:
            for match in _search(numbers).finditer(lowered):
                if ends is None:
                    ends = [m.end() for m in _SENTENCE_END.finditer(lowered)]
                found = max(found, weight)
                best = per_sentence.setdefault(bisect.bisect_right(ends, match.start()), {})
                if weight > best.get(family, (0.0, ""))[0]:
                    best[family] = (weight, match.group()[:60])
        achieved += found
        remaining -= ceiling
        if achieved + remaining < THRESHOLD:  # no window can reach it: a window sums a subset of the text's cues
            return Score(0.0, ())
    result = Score(0.0, ())
    for first in per_sentence:
        window: dict[str, tuple[float, str]] = {}
        for index in range(first, first + WINDOW):
            for family, cue in per_sentence.get(index, {}).items():
                if cue[0] > window.get(family, (0.0, ""))[0]:
                    window[family] = cue
        total = sum(weight for weight, _ in window.values())
        if total > result.total:
            result = Score(total, tuple((family, weight, quoted) for family, (weight, quoted) in window.items()))
    return result


def flagged(text: str, screen: Screen | None = None) -> Score | None:
    """The score of `text` if it reaches the threshold."""
    result = score(text, screen)
    return result if result.total >= THRESHOLD else None
