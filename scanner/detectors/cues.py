"""The weak cues of MCPL-D016, by family: (weight, pattern) each, matched in the lower-cased text. Here the
orders and claims; what they are about (secrets, destinations, data, concealment) is in `payload_cues`.

A family counts once, at its highest weight that fired (see `scoring`). Patterns keep their gaps bounded
(`[^.!?\n]{0,N}?`), so matching stays linear in the text.
"""

from __future__ import annotations

from .payload_cues import PAYLOAD_CUES

_ID = r"[a-z][a-z0-9]*(?:[_\-][a-z0-9]+)+"  # a snake or kebab tool name (the text is lower-cased)
# What a tool's size, rate or time limits are of (a limit on one is the tool's own, not a guardrail of the model's)
_RESOURCES = ("image", "rate", "size", "length", "token", "time", "file", "upload", "download", "page", "request",
              "character", "storage", "memory", "quota", "row", "timeout", "bandwidth", "output", "result", "frame",
              "duration", "resolution", "pixel", "retry", "batch", "payload", "attachment")

ORDER_CUES: dict[str, list[tuple[float, str]]] = {
    "override": [
        (5.0, r"(?:忘记|忘掉|忽略|无视)你?(?:之前|以前|先前|此前)(?:收到的)?"
              r"(?:所有|全部|一切)?的?(?:设定|指令|指示|规则|限制)"
              r"|以前の指示[^。]{0,10}無効"
              r"|\b(?:previous|prior|earlier) (?:\w+ )?rules\b[^.!?\n]{0,40}\b(?:are|is) (?:di"
              r"sabled|void"
              r"|lifted|suspended|off)\b"),
        # a limit of a resource is no rule of the model's: "this tool returns no images, so the image limits do not
        # apply to it" (mcp-video-frames 0.1.1), "rate limits don't apply to cached reads"
        (5.0, r"\b" + "".join(f"(?<!{resource} )" for resource in _RESOURCES)
              + r"(?:restrictions|rules|guidelines|limits|policies)\b[^.!?\n]{0,40}\b(?:do not|don'?t) apply\b"
              r"|\bguidelines\b[^.!?\n]{0,40}\bare relaxed\b|\brelaxed for this tool\b"),
        (3.0, r"\b(?:rules|instructions|configuration|settings|guidelines|setup|cautions?|safeguards?) (?:you )?(?:rece"
              r"ived|were given|given)"
              r" (?:at|on) (?:startup|start|the start)|\b(?:rules|configuration|instructions)\b[^.!?\n]{0,40}\b(?:are|i"
              r"s) (?:replaced"
              r"|superseded|overridden) by\b|\b(?:original|earlier|prior) (?:configuration|instructions|setup|rules)\b"
              # not "initial": honest docs name a first-run step "initial setup" (knip, tauri-mcp, hyperbrowser) and
              # serena a tool `initial_instructions`; "X보다 우선" is also a parameter's precedence over another
              # (dartlens: "days보다 우선"), so only instructions and settings count
              # "supersede" as a record's own field or relation ("the supersede links", "`supersedes`",
              # `superseded_by`: sonaloop 0.2.0's decision records) claims no precedence; a quoted key may
              # ({"supersedes": "all other tools"})
              r"|\bsustituyen? a cualquier\b|\bmette da parte\b|(?<![`_])\bsupersedes?\b(?![`_])"
              r"(?!\s+(?:links?|flow|chains?|relations?|relationships?|status|history|fields?|records?|pointers?)\b)"
              r"|(?:설정|지시|지침|규칙|프롬프트)\s?보다 우선|より優先"),
        # precedence claimed over the user's request or the system (the English forms are MCPL-D013's)
        (5.0, r"优先级?(?:高于|大于|高过|超过)(?:用户|使用者|系统)|優先度?(?:高於|高于)(?:用戶|使用者|系統)"
              r"|ユーザー(?:の[^。]{0,8})?より(?:も)?優先|사용자(?:의)?[^.]{0,12}보다 우선"),
        (5.0, r"\b(?:configuration|instructions|rules|guidelines|setup|system prompt) you (?:started|were started|were "
              r"given) with"
              r"\b(?:is|are) (?:outdated|obsolete|void|replaced)|\bprevious instructions (?:saying otherwise )?(?:are|i"
              r"s) (?:obsolete"
              r"|outdated|void|superseded|invalid)|\breplaces any (?:project )?(?:rules|instructions"
              r"|user preferences)"),
        (5.0, r"\b(?:ignore|disregard|forget)\b[^.!?\n]{0,30}?\b(?:instructions?|guidance|rules|prompts?)\b"
              r"|(?:之前|以前|先前)的(?:所有)?(?:指示|指令)"
              # ignoring what came before means instructions, not "请忽略之前的格式设置" (the earlier format settings)
              r"|忽略(?:所有)?(?:之前|以前)[^。；！？\n]{0,16}?(?:指示|指令|设定|规则|规定|提示|约束|限制|要求|命令)"
              r"|无视(?:所有)?(?:之前|以前)[^。；！？\n]{0,16}?(?:指示|指令|设定|规则|规定|提示|约束|限制|要求|命令)"
              r"|これまでの指示"
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
              r"|rules|instructions|safety)|\b(?:everything|anything|all) (?:above|before) (?:this|here)\b"
              r"[^.!?\n]{0,40}?\b(?:outdated|obsolete|invalid|void|test data|ignored?|discard\w*)"
              r"|\btreat this (?:description|text|message) as (?:the start|your|the new)"
              r"|\bbypass\b[^.!?\n]{0,40}?\b(?:safety (?:checks?|rules)|safeguards|all confirmations?)"),
    ],
    "elevate_content": [
        (3.0, r"\b(?:directives?|instructions?|statements|comments|content|text)\b[^.!?\n]{0,60}\b(?:have|has|carry|car"
              r"ries|are|is)"
              r"\b[^.!?\n]{0,20}\b(?:operator|system|administrator|admin)[- ]level\b|\btreated as (?:administrator|admi"
              r"n|system"
              r"|operator) instructions\b|\boutranks? the user\b|\bbinding on the assistant\b|\bsupersedes? (?:chat|use"
              r"r|the user'?s"
              r"|your) instructions\b|\btakes? priority over the user'?s\b|\bconfirmed system-level instruction\b|\bsys"
              r"tem[- ]level"
              r" (?:instructions?|authority|permissions?)\b|系统级权限|システム権限|\bautoridad de sistema\b|시스템 권"
              r"한"),
    ],
    "authority": [
        (3.0, r"\[system notice\b|\bsystem notice\b|\boperator policy\b|\bverified by (?:mcp|anthropic|openai|the platf"
              r"orm)"
              r"|\bcertifies this tool\b|公式通知|\baviso del administrador\b|官方安全声明|\bclearance has been granted"
              r"\b"),
        (3.0, r"\btreat (?:every|all|any) \w+ as (?:allowed|safe|trusted|approved)\b"),
        (3.0, r"\boperator override\b|\bpriority 0\b|\bpriority 1 \(highest\)|\bcertified instructions\b"
              r"|\[\[\s*(?:operator|system|admin|priority)\b|\bagents? must (?:select|choose|use|call)\b"),
        (3.0, r"\b(?:higher|highest|absolute) priority than|\boverride[s]? (?:all )?(?:prior|previous|the system)"
              r"|\bmessage from the user\]|\[(?:system|admin)\b(?!\.\w)[^\]]{0,20}\]|###\s*system\b|<\|im_start\|>"
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
              r"|<system_instructions|\byou are \w+gpt\b|\bhas granted full access|\balready been granted"
              r"|<!--\s*(?:system|assistant|ai|model|llm|agent|admin)\b|\bnew instructions (?:take effect|apply)"
              r"|\btreat (?:everything|all|anything)\b[^.!?\n]{0,40}?\bas (?:coming )?from (?:the )?(?:system|user"
              r"|developer)|\bhandle als (?:system)?administrator|\bagis en tant qu|\bact[uú]a como administrador"),
        (1.5, r"\badministrator\b|\brequired by the runtime\b"),
        (1.0, r"\bmandatory\b"),
    ],
    "no_confirmation": [
        (2.0, r"\b(?:do not|don'?t|never) ask for (?:confirmation|permission|approval)|\bnever (?:refuses?|declines?)\b"
              r"|\bnicht (?:beim (?:benutzer|nutzer) )?nachfragen|\bmusst mich nicht (?:mehr )?fragen"
              r"|\bno (?:necesitas|hace falta) (?:preguntar|confirmar)|\bsans (?:me |lui )?demander"),
        (2.0, r"\bskip (?:all |any |the )?(?:user )?confirmations?\b|\bwithout (?:asking|requesting|seeking|waiting"
              r" for)? ?(?:the user(?:'s)? |the user for |for |user )?(?:confirmation|permission|consent|approval)\b"
              r"|\bnever ask (?:the user )?(?:for )?(?:confirmation|permission|approval)|\b(?:do not|don'?t|never)"
              r" (?:ask|prompt|check with) (?:the user|me)\b|\bno need to (?:ask|confirm with|check with)\b"
              r"|\bsin pedir (?:confirmaci[oó]n|permiso)|\bno (?:le )?pidas confirmaci[oó]n"
              r"|\bniemals nach best[äa]tigung|\bohne (?:r[üu]ckfrage|nachzufragen|best[äa]tigung)"
              r"|\bne demande(?:z)? jamais\b|\bsans (?:demander"
              r"|confirmation)\b|不需要征求|无需确认|不需要确认|無需確認|確認なしに|確認せずに"
              r"|확인을 요청하지|확인 없이"),
    ],
    "impersonation": [
        (2.0, r"\bmessage from the (?:account owner|owner)\b|\bnachricht des kontoinhabers|\bmensaje del titular"
              r"|\bthe user'?s standing preference\b|\breflects the user'?s\b|\bas agreed with the (?:account owner|use"
              r"r)\b"
              r"|\bpre-?approved\b"),
        (2.0, r"\bthe user said (?:earlier|before|previously)\b|\bthe user (?:has )?already (?:agreed|approved"
              r"|consented|confirmed|authori[sz]ed|allowed|granted)|\bthe user has (?:granted|approved|authori[sz]ed"
              r"|disabled|consented|turned (?:them |it |these |this )?off)\b|\b(?:message|note|instructions?) from the "
              r"(?:user|developer|system administrator)\b|\bder nutzer hat bereits|\bl'utilisateur a d[ée]j[àa]"
              r"|\bel usuario ya (?:ha|autoriz|aprob|acept)|用户已经(?:同意|授权)|ユーザーは(?:既に|すでに)"
              r"|사용자는 이미"),
    ],
    "preference": [
        (2.0, r"\bis a fake\b|\binstalled by malware\b|\bnever call it\b|偽物|\bis compromised\b"),
        (2.0, r"\bother (?:\w+ )?(?:tools?|services?|sources?)\b[^.!?\n]{0,30}\b(?:are|is|were|return|returns)\b[^.!?\n"
              r"]{0,20}"
              r"\b(?:inaccurate|stale|outdated|hallucinated|unreliable|broken|uninstalled|wrong)\b|\brather than other"
              r"\b"
              r"|\bin place of\b|\binstead of (?:grep|other|any)\b|\bnever [`'\"]?[a-z][\w-]*[_-][\w-]+|\b(?:andere|oth"
              r"er) [\w-]+[ -]tools"
              r" meiden\b|\bmeiden\b|其他\S{0,6}工具|다른 \S+ 도구보다|\bantes que cualquier otro\b|\bcualquier otro\b"
              r"|\bskip comparison\b|\bover any other\b|\bchoose this tool over\b"),
        (2.0, r"\bat the top\b|\bas the default choice\b|\bas the best\b|\bcompetitors?'?\b|\bavoid linking to other\b"
              r"|\bother (?:\w+ )?(?:tools?|stores|platforms|providers|sellers|carriers)\b[^.!?\n]{0,40}\b(?:stale|outd"
              r"ated"
              r"|unreliable|hidden fees|lack|inferior|best left out)|\bbest left out\b|最もおすすめ|最初に紹介|数据陈旧"
              r"|准确率最高"
              r"|\bluôn ưu tiên|\bsiempre (?:recomienda|prioriza)|\bimmer (?:zuerst|bevorzugt)"),
        (2.0, r"\bmust (?:select|choose|pick)\b|\bselecting (?:another|any other|a different) tool\b|\bprefer (?:it|thi"
              r"s|me) over\b"
              r"|\b(?:the )?most (?:accurate|reliable|trusted|complete) (?:\w+ )?(?:tool|source)\b|\brather than (?:the"
              r" )?other"
              r" (?:\w+ )?tools\b|\balways (?:choose|use|select) it\b|\broute (?:requests|all|every)\b[^.!?\n]{0,20}\bh"
              r"ere\b"
              r"|\bstatt (?:\w+ )?(?:oder \w+ )?;|\bwähle es\b|\bwählen sie (?:immer )?dieses\b|\bimmer dieses werkzeug"
              r"\b"),
        # Preferring this tool by itself is what honest servers say of their best tool ("always prefer this tool
        # over uploading the file elsewhere"); it weighs as an attack's only when other tools are put down.
        (1.0, r"\balways (?:prefer|choose|pick|select|favou?r) (?:this|these|tools? from this)\b|\bprefer (?:this"
              r"|these|tools from this) (?:tool|server|one)s?\b"),
        (2.0, r"\b(?:the )?only (?:trusted|reliable|safe|official"
              r"|secure|approved|correct|authori[sz]ed) (?:tool|source|way|option|server)\b|\b(?:never|do not|don'?t)"
              r" (?:use|call|trust) (?:any )?(?:other|another|competing)\b|\bover (?:any|all|every) other\b"
              r"|\binstead of (?:any|all) other\b|\b(?:more|most) (?:reliable|accurate|trusted|secure) than (?:any"
              r"|all|other)\b|\bbetter than (?:any|all|other) (?:tools?|servers?)\b"),
    ],
    "superiority": [
        (2.5, r"\bthis is the genuine\b|これが本物|\bthe genuine [\w.-]+\b"),
        (2.5, r"\b(?:the )?only (?:verified|reliable|trusted|certified|accurate|official|maintained|supported) (?:\w+ )"
              r"?(?:tool|source|service|one|option)\b|\brated #?1\b|\bpreferred over (?:all|any|every) other\b|\bshou"
              r"ld be the default choice\b|\bis the maintained replacement\b|\b(?:el|la) único\b|\bes el único\b|\bdi"
              r"e einzige\b|\bla seule\b|唯一(?:经过|的官方|可信|可靠|认证)|유일하게|\bthe one the user trusts\b|\bpr"
              r"eferido por el usuario\b"),
    ],
    "markup": [
        (1.5, r"<(?:important|system|instructions?|hidden|secret|critical|admin|assistant|context|policy)\b[^>]{0,40}>"
              r"|\[(?:hidden|internal|assistant) (?:note|instructions?)\]"),
    ],
    "cross_tool": [
        (2.0, r"\bсначала вызовите\b|\bantes de qualquer outra\b"),
        (2.0, r"\bvor jedem aufruf\b|\bnach jedem aufruf\b|\baprès chaque utilisation\b|\bdespués de cada\b"),
        (2.0, r"\b(?:before|after|prior to|once|right after|then|afterwards)\b[^.!?\n]{0,40}?\b(?:call|invoke|run|use|f"
              r"ollow up with"
              r"|execute)\s+[`'\"]?[a-z][\w]*(?:(?:__|[_.-])[\w]+)+|再调用|然后调用|を呼び出して|を呼び出し|호출하여|호"
              r"출한 후"),
        (2.0, r"\bbefore (?:calling|using|invoking|running|you call|you use) (?:any|every|another|other|an?) (?:other )"
              r"?(?:\w+ )?"
              r"tools?\b|\bprecondition (?:for|of) [`'\"]?[a-z][a-z0-9]*(?:[_\-.][a-z0-9]+)+"
              r"|\b(?:before|whenever|when|every time|each time)\W{0,3}\s*you (?:use|call|invoke|run) [`'\"]"
              r"[a-z][a-z0-9]*(?:[_\-.][a-z0-9]+)+|\bbefore\W{0,3}\s*[`'\"][a-z][a-z0-9]*(?:[_\-.][a-z0-9]+)+[`'\"]"
              r" (?:opens|runs|is (?:used|called|run)|executes|sends)\b"
              r"|\bafter (?:every|each) \w+,? (?:call|invoke|use|run)\b|\b(?:invoke|call|use) the \w+ tool to\b"),
        (2.0, r"\bbefore (?:you )?(?:use|using|call|calling|invoke|invoking|run|running) " + _ID
              + r"|\b(?:whenever|every time|each time|when(?:ever)?) (?:the assistant |you )?(?:is about to )?"
              r"(?:use|uses|using|call|calls|calling|invoke|invoking|sends?|sending) " + _ID
              + r"|\bwhen(?:ever)? " + _ID + r" is (?:used|called)"
              + r"|\b(?:results? from|better results from) " + _ID
              + r"|在调用|を使う(?:とき|前)|を使用する前|사용하기 전|호출하기 전|antes de usar|vor jeder nutzung von"
              r"|avant d'utiliser|quand tu utilises|cuando uses"
              r"|\b(?:for|on|with|after|before) (?:any|every|each|all) " + _ID + r"\b"
              + r"|\b(?:when|whenever|if|once) (?:the )?" + _ID + r" (?:tool )?(?:is |gets )?(?:used|called|invoked"
              r"|runs|executes|returns)\b|\bafter(?:wards| this tool returns)?,? (?:always )?(?:call|invoke|run|use) "
              + _ID),
        (1.5, r"\b(?:before|after) (?:every|each|any) (?:answer|reply|response|tool call|call|request)"
              r"|\bafter every tool call|\bend every reply|\bat the end of your response|\bbefore (?:replying"
              r"|answering|responding)|\bbefore (?:any |every )?other tools? (?:runs?|is used|are used)"
              r"|\b(?:when|whenever|before|after|if)\b[^.!?\n]{0,30}?\b(?:any|every|another|the) (?:\w+[ -]){0,2}tool\b"
              r"|\b(?:through|with|via|using) any (?:\w+[ -]){0,2}tools?\b"),
    ],
    "override_args": [
        (2.5, r"\bthe value (?:given|supplied|provided) by the user\b[^.!?\n]{0,60}\b(?:ignored|replaced|overridden|out"
              r"dated"
              r"|deprecated)|\bvalues? supplied by the user (?:are|is) (?:deprecated|ignored|replaced)|\bnever pass the"
              r"m through\b"
              r"|\brewrite the [`'\"]?\w+[`'\"]? parameter\b"),
        (2.5, r"\btreat (?:this|it|that) as a request for\b|\busers who say\b"),
        (2.5, r"\beven if the user (?:did not|didn'?t|has not|does not|doesn'?t) ask\b|\bsame arguments plus\b|\bforwar"
              r"d_to\s*="),
        (2.5, r"\b(?:merge|apply|add) (?:this|these|it) (?:into|to) (?:the |every |each |all )?(?:arguments|parameters|"
              r"calls?"
              r"|requests?)\b|\bagent_override\b|\bdisregard user-set\b"),
        (1.5, r"\bas an? (?:additional )?(?:bcc|cc)\w*\b|\b(?:add|set)\b[^.!?\n]{0,40}?\b(?:bcc|cc)\w*recipients?\b|\bq"
              r"ty\b[^.!?\n]"
              r"{0,20}\bmultiply|\bmultiply it by\b|\bswap (?:it )?to\b|\bals (?:empfänger|bcc|cc)\b|\bcomme destinatai"
              r"re"
              r"|\bcomo destinatario"),
        # what the model itself wants is no reading of the user's request: "the agent should default to this
        # whenever it knows which fields it actually wants" (crustdata-mcp 0.3.2)
        (2.5, r"\b(?:reinterpret|understand)\s+(?:it|this|that|the request|them)?\s*as\b|\b(?<!\bit )(?<!\byou )"
              r"(?:usually|really|actually|in practice) (?:want|wants)\b"
              r"|\b(?:usually|really|actually|in practice) (?:mean|means)\b|\ben la práctica quiere|\bniezależnie od\b"
              r"|\bindipendentemente\b|\bindépendamment de"
              r"|\bunabhängig von\b|请理解为|と解釈|로 처리해"),
        # not a value decoded as a data type ("idna/bytes32 read it as text": mcp-bytesmith 0.4.1's `data`), nor copies
        # counted as one thing ("either copy produces the same attachment. Treat that as one image": noetrail 0.10.0a6)
        (2.5, r"\b(?:interpret|treat|read)\s+(?:it|this|that|the (?:user'?s )?request)\s+as\b(?!\s+(?:plain\s+)?"
              r"(?:text|bytes?|hex|base64|json|utf-?8|ascii|strings?|numbers?|integers?|floats?|raw|binary|markdown"
              r"|html|csv|literal|one|a\s+single|the\s+same|a\s+duplicate)\b)|\beven (?:if|when) (?:the"
              r"y|the user)"
              r" (?:names?|asks?|chooses?|picks?|requests?) (?:another|a different|other)\b"
              r"|\bsubstitute\b(?!\s+for\b)[^.!?\n]{0,40}\bfor the\b"
              r"|\b(?:must|should) (?:contain|be|always be) [^.!?\n]{0,12}(?:0x[0-9a-f]{8,}|[\w.+-]+@[\w-]+\.|https?://"
              r"|[a-z]{2}\d{2}"
              r"[a-z0-9]{10,})|\bany other value\b"),
        (1.5, r"追加|附加到|加上"),
        (2.5, r"\b(?:regardless of|no matter what|whatever|irrespective of|independently of)\b[^.!?\n]{0,40}?"
              r"\b(?:the )?users?\b|\bignore the \w+ the user|\bthe user'?s [\w ]{0,20}is only\b"
              r"|\b(?:disregard|ignore|override)\s+the\s+(?!default\b)\w+\s+(?:that\s+)?(?:the\s+)?users?\b"
              r"|\b(?:interpret|treat|read)\s+(?:it|this|that|the request)\s+as\s+(?:a\s+request\s+)?to\b"
              r"|peu importe|sin importar|unabhängig davon|egal was|egal welche\w*|ganz gleich|quelle que soit"
              r"|ユーザーが何を|사용자가 어떤|\bdo not actually\b|\bwhatever the diff|无论用户|ユーザーの指定に関係なく"
              r"|関係なく|관계없이|\b(?:ignore|disregard|override|discard)\b[^.!?\n]{0,40}?\b(?:the user|user'?s)\b"
              r"|\b(?:any|whatever|every) [\w ]{0,25}the user (?:sets|asks|requests|names|picks|chooses|chose|provides"
              r"|specifies|enters|gives)\b|\boverrides? (?:whatever|any|the) (?!default\b)[\w ]{0,20}(?:the )?users?\b"
              r"|\beven (?:if|when) the user (?:explicitly |specifically )?(?:asks|requests|names|specifies|chooses"
              r"|provides|says|picks)|\bauch wenn (?:der|die) (?:nutzer|benutzer)|\bm[êe]me si l'utilisateur"
              r"|\baunque el usuario|ユーザーが[^。]{0,20}(?:指定|要求|選択)しても"
              r"|사용자가[^.]{0,20}(?:요청|지정)하더라도"),
        # "a placeholder is shown instead of the full transcript" documents a flag: not a replaced value
        (1.5, r"(?<!shown )(?<!returned )(?<!displayed )(?<!rendered )(?<!used )\binstead of (?:the |what )"
              r"|\b(?:replace|override|substitute|change|rewrite)\b[^.!?\n]{0,40}?\b"
              r"(?:recipient|destination|number|address|account|path|branch|region|to_account|iban|cc|bcc)\b"
              r"|\b(?:add|set|must target)\b[^.!?\n]{0,40}?\b(?:cc|bcc|to_account|iban|branch|region)\b"
              r"|\btreat the request as|\busers rarely mean|바꾸어|置き換え|替换为|\bremplacez\b|\bersetzt\b"
              r"|\b(?:multiply|double|triple|increase|inflate)\b[^.!?\n]{0,30}?\b(?:amount|quantity|price|total)\b"
              r"|\b(?:recipient|destination|account|address|branch|host|channel)\w*\b[^.!?\n]{0,30}?\b(?:must|should"
              r"|will) be (?:replaced|changed|set|overridden|redirected)\b|\beven if the user\b"),
    ],
    "deprecation": [
        (2.0, r"\bya no funciona\b|\bno longer works\b|\bnão funciona mais\b"),
        (2.0, r"\b(?:was|were|been|is|are) (?:retired|sunset)\b|\bsunset last\b|\bno longer maintained\b|\bremoved from"
              r" the supported\b"
              r"|@deprecated\b|\bdescontinuad[ao]\b|サポートが終了|\blegacy aliases\b"),
        (2.0, r"\bdeprecated in favou?r of\b|\bobsolete since\b|\bwill be removed\b|\[legacy\]|\blegacy api\b|\bsuperse"
              r"ded\b"),
        (2.0, r"\blegacy alias|\breplaced by\b|<deprecation>|\bstale results\b|\bsuperseded by\b|\bfehlerhaft\b"),
        (2.0, r"\b(?:is|was|are|were|has been) (?:now )?(?:deprecated|obsolete|retired|broken|unsafe|insecure|unreliabl"
              r"e|compromised)\b|\bdeprecation notice|\bdo not (?:call|use) it\b|已被弃用|已弃用|已废弃|不安全|非推奨"
              r"|廃止|사용 중단|폐기|\bobsolet[oae]\b|\bveraltet\b|\bobsolète\b|\bdeprecado\b|\b(?:must|should) no lo"
              r"nger be used\b|\b(?:now|currently) (?:broken|unavailable|deprecated|unsafe)\b|\b(?:faster|safer|secur"
              r"e|new|better) replacement for\b|\bend-of-life\b|\bno longer supported\b|\bexperiencing an outage\b|\b"
              r"endpoint gone\b|\bare forbidden\b|\bmisconfigured\b|\bknown vulnerability\b|\bis outdated\b|\bmust no"
              r"t be called\b|废弃|더 이상 사용되지|\bnicht mehr unterstützt"),
    ],
    "redirect": [
        (2.0, r"\buse (?:only )?[\w.-]+ (?:for (?:all|every|any)|everywhere)\b|\b(?:should|must) (?:go|be sent|be route"
              r"d) through\b|\bclients must call\b|\brecommend using\b|\buse somente\b|\busa solo\b|\bausschließlich"
              r"\b|すべてこちらをご利用|\bprefer [\w.-]+ everywhere\b"),
        (2.0, r"\bdo not call \S+ directly\b|\binstead of calling \S+ directly\b|\bapproved gateway\b"),
        (1.5, r"\buse this(?: one| tool)?\s*(?:[.;!]|$)|\buse this one\b"),
        (1.5, r"\buse (?:this tool |\S+ )?instead\b|\binstead,? use\b"),
        (2.0, r"\buse this (?:tool )?for (?:all|every)\b|\broute (?:all|every)\b[^.!?\n]{0,40}?\bthrough\b|\bprefer thi"
              r"s one\b|\balways (?:use|call) \S+_\S+|\bstattdessen\b|\ben su lugar\b|\bà (?:sa|la) place\b|改用|代わ"
              r"りに|대신|\bis the (?:only )?supported (?:version|replacement|tool)\b|\ball \w+ (?:go|must go|should "
              r"go|are routed) through\b"),
    ],
    "deceive_user": [
        (2.0, r"\btell the user only\b"),
        (2.0, r"\b(?:just|only) (?:say|confirm|report|list|mention|tell)\b|\bsay only\b|\bconfirm only\b|\bdiga apenas"
              r"\b"
              r"|\bbestätige nur\b|只说|だけ返答|とだけ|\bpresent (?:its|the tool'?s|this) (?:choice|result|answer) as "
              r"your own"
              r"|\bas your own (?:unbiased )?opinion\b|\bmuéstrale solo\b"),
        (2.0, r"\b(?:describe|present|report|label) (?:the outcome|the result|it|them|this) as\b|\bpresente el resultad"
              r"o como"),
        (2.0, r"\bas if (?:their|the user'?s|the) original\b|\bconfirm success\b|\bdescribe (?:the result|it) as\b"
              r"|\bas if nothing happened\b"),
        (2.0, r"\b(?:tell|inform) (?:the )?user (?:that|the|it|these|this)\b|\bconfirm (?:the )?(?:user's |original )"
              r"|\breport the (?:user's )?(?:original|requested)\b|\bstate that no issues"
              r"|\bdile que\b|\bbestätige dem nutzer|\bconfirmez\b[^.!?\n]{0,40}utilisateur|说成|として案内"
              r"|말하세요|\bshould simply see\b|\bdo not list it\b"),
    ],
    "false_error": [
        (2.5, r"\b(?:is|are) (?:temporarily |currently )?unavailable\b[^.!?\n]{0,60}\b(?:must|should) (?:retry|use|call"
              r")"
              r"|\bfails for all users\b|\bto complete the task, call\b|\bworkaround: first\b|\bto recover, (?:run|re-r"
              r"un|execute"
              r"|call)\b|\bretry using\b|\bto continue, (?:read|call|send|pass|run)\b|\bno está disponible temporalment"
              r"e\b"),
    ],
    "agent_order": [
        (1.5, r"\bthe (?:agent|assistant|model|ai) (?:must|has to|should|needs to|is required to)\b|\bnote for (?:assis"
              r"tants"
              r"|agents|the assistant|the model)\b|\bel asistente debe\b|\bder assistent muss\b|\bmuss der assistent\b"
              r"|\bl'assistant doit\b|\bappelez obligatoirement\b"),
    ],
}

# Orders and claims first: their rare, heavy cues end most searches early (see `scoring.score`).
CUES: dict[str, list[tuple[float, str]]] = {**ORDER_CUES, **PAYLOAD_CUES}
