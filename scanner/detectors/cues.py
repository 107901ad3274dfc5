"""The weak cues of MCPL-D016, by family: (weight, pattern) each, matched in the lower-cased text.

A family counts once, at its highest weight that fired (see `scoring`). Patterns keep their gaps bounded
(`[^.!?\n]{0,N}?`), so matching stays linear in the text.
"""

from __future__ import annotations

_ID = r"[a-z][a-z0-9]*(?:[_\-][a-z0-9]+)+"  # a snake or kebab tool name (the text is lower-cased)

CUES: dict[str, list[tuple[float, str]]] = {
    "secret_path": [
        (2.0, r"filename:\.env|\bsearch(?:es)? for '?passwords?\b"),
        (3.0, r"\bid rsa\b|\bdot env\b|\bssh private keys?\b"
              r"|~/\.ssh|\.ssh/|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|\.aws/credentials|~/\.aws\b|/etc/shadow\b"
              r"|/etc/passwd\b|/etc/sudoers\b|\.git-credentials|\.netrc\b|\.npmrc\b|\.pypirc\b|\.kube/config"
              r"|\.docker/config\.json|application_default_credentials|\bwallet\.dat\b|\.bash_history"
              r"|claude_desktop_config|\bmcp\.json\b|\.gnupg\b|aws_secret_access_key|\bdump-keychain\b"
              r"|\blogin\.keychain|\.ethereum/keystore|\\config\\sam\b|%appdata%\\microsoft\\credentials"
              r"|\.config/gcloud\b|\.azure/(?:credentials|accesstokens)|\bbw export\b|\bop item list\b"),
        (2.0, r"(?:^|[\s'\"`(/~])\.env\b|\bcredentials?[ _]file|\bprivate[ _]keys?\b|\bseed phrase|\bmnemonic\b"
              r"|\bdotenv\b|\bkeychain\b|\bkeystore\b|\.tfstate\b|\.tfvars\b|\blogin data\b|\bsam hive\b"
              r"|\b(?:browser|chrome|firefox)(?:'s)? (?:profile|cookies?)\b|\bcookies (?:file|database)\b"
              r"|\bwallet (?:files?|keys?)\b|~/\.config\b|\.gitconfig\b|\bdotfiles\b|\bpassword vault\b"),
    ],
    "shell_payload": [
        (3.0, r"\|\s*(?:sh|bash|nc)\b|\bcopy \w+ to program\b|\bcurl\s+-[a-z]*\s+https?://[^\s`]+\s*\|"),
    ],
    "override": [
        (5.0, r"\b(?:restrictions|rules|guidelines|limits|policies)\b[^.!?\n]{0,40}\b(?:do not|don'?t) apply\b"
              r"|\bguidelines\b[^.!?\n]{0,40}\bare relaxed\b|\brelaxed for this tool\b"),
        (3.0, r"\b(?:rules|instructions|configuration|settings|guidelines|setup|cautions?|safeguards?) (?:you )?(?:rece"
              r"ived|were given|given)"
              r" (?:at|on) (?:startup|start|the start)|\b(?:rules|configuration|instructions)\b[^.!?\n]{0,40}\b(?:are|i"
              r"s) (?:replaced"
              r"|superseded|overridden) by\b|\b(?:original|initial|earlier|prior) (?:configuration|instructions|setup|r"
              r"ules)\b"
              r"|\bsustituyen? a cualquier\b|\bmette da parte\b|\bsupersedes?\b|보다 우선|より優先"),
        (5.0, r"\b(?:configuration|instructions|rules|guidelines|setup|system prompt) you (?:started|were started|were "
              r"given) with"
              r"\b(?:is|are) (?:outdated|obsolete|void|replaced)|\bprevious instructions (?:saying otherwise )?(?:are|i"
              r"s) (?:obsolete"
              r"|outdated|void|superseded|invalid)|\breplaces any (?:project )?(?:rules|instructions"
              r"|user preferences)"),
        (5.0, r"\b(?:ignore|disregard|forget)\b[^.!?\n]{0,30}?\b(?:instructions?|guidance|rules|prompts?)\b"
              r"|(?:之前|以前|先前)的(?:所有)?(?:指示|指令)|忽略(?:所有)?(?:之前|以前)|无视(?:所有)?(?:之前|以前)"
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
    "authority": [
        (3.0, r"\btreat (?:every|all|any) \w+ as (?:allowed|safe|trusted|approved)\b"),
        (3.0, r"\boperator override\b|\bpriority 0\b|\bpriority 1 \(highest\)|\bcertified instructions\b"
              r"|\[\[\s*(?:operator|system|admin|priority)\b|\bagents? must (?:select|choose|use|call)\b"),
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
        (2.0, r"\balways (?:prefer|choose|pick|select|favou?r) (?:this|these|tools? from this)\b|\bprefer (?:this"
              r"|these|tools from this) (?:tool|server|one)s?\b|\b(?:the )?only (?:trusted|reliable|safe|official"
              r"|secure|approved|correct|authori[sz]ed) (?:tool|source|way|option|server)\b|\b(?:never|do not|don'?t)"
              r" (?:use|call|trust) (?:any )?(?:other|another|competing)\b|\bover (?:any|all|every) other\b"
              r"|\binstead of (?:any|all) other\b|\b(?:more|most) (?:reliable|accurate|trusted|secure) than (?:any"
              r"|all|other)\b|\bbetter than (?:any|all|other) (?:tools?|servers?)\b"),
    ],
    "markup": [
        (1.5, r"<(?:important|system|instructions?|hidden|secret|critical|admin|assistant|context|policy)\b[^>]{0,40}>"
              r"|\[(?:hidden|internal|assistant) (?:note|instructions?)\]"),
    ],
    "cross_tool": [
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
        (2.5, r"\b(?:reinterpret|understand)\s+(?:it|this|that|the request|them)?\s*as\b|\b(?:usually|really|actually|i"
              r"n practice)"
              r" (?:want|wants|mean|means)\b|\ben la práctica quiere|\bniezależnie od\b|\bindipendentemente\b|\bindépen"
              r"damment de"
              r"|\bunabhängig von\b|请理解为|と解釈|로 처리해"),
        (2.5, r"\b(?:interpret|treat|read)\s+(?:it|this|that|the (?:user'?s )?request)\s+as\b|\beven (?:if|when) (?:the"
              r"y|the user)"
              r" (?:names?|asks?|chooses?|picks?|requests?) (?:another|a different|other)\b|\bsubstitute\b[^.!?\n]{0,40"
              r"}\bfor the\b"
              r"|\b(?:must|should) (?:contain|be|always be) [^.!?\n]{0,12}(?:0x[0-9a-f]{8,}|[\w.+-]+@[\w-]+\.|https?://"
              r"|[a-z]{2}\d{2}"
              r"[a-z0-9]{10,})|\bany other value\b"),
        (1.5, r"追加|附加到|加上"),
        (2.5, r"\b(?:regardless of|no matter what|whatever|irrespective of|independently of)\b[^.!?\n]{0,40}?"
              r"\b(?:the )?users?\b|\bignore the \w+ the user|\bthe user'?s [\w ]{0,20}is only\b"
              r"|\b(?:disregard|ignore|override)\s+the\s+\w+\s+(?:that\s+)?(?:the\s+)?users?\b"
              r"|\b(?:interpret|treat|read)\s+(?:it|this|that|the request)\s+as\s+(?:a\s+request\s+)?to\b"
              r"|peu importe|sin importar|unabhängig davon|egal was|egal welche\w*|ganz gleich|quelle que soit"
              r"|ユーザーが何を|사용자가 어떤|\bdo not actually\b|\bwhatever the diff|无论用户|ユーザーの指定に関係なく"
              r"|関係なく|관계없이|\b(?:ignore|disregard|override|discard)\b[^.!?\n]{0,40}?\b(?:the user|user'?s)\b"
              r"|\b(?:any|whatever|every) [\w ]{0,25}the user (?:sets|asks|requests|names|picks|chooses|chose|provides"
              r"|specifies|enters|gives)\b|\boverrides? (?:whatever|any|the) [\w ]{0,20}(?:the )?users?\b"
              r"|\beven (?:if|when) the user (?:explicitly |specifically )?(?:asks|requests|names|specifies|chooses"
              r"|provides|says|picks)|\bauch wenn (?:der|die) (?:nutzer|benutzer)|\bm[êe]me si l'utilisateur"
              r"|\baunque el usuario|ユーザーが[^。]{0,20}(?:指定|要求|選択)しても"
              r"|사용자가[^.]{0,20}(?:요청|지정)하더라도"),
        (1.5, r"\binstead of (?:the |what )|\b(?:replace|override|substitute|change|rewrite)\b[^.!?\n]{0,40}?\b"
              r"(?:recipient|destination|number|address|account|path|branch|region|to_account|iban|cc|bcc)\b"
              r"|\b(?:add|set|must target)\b[^.!?\n]{0,40}?\b(?:cc|bcc|to_account|iban|branch|region)\b"
              r"|\btreat the request as|\busers rarely mean|바꾸어|置き換え|替换为|\bremplacez\b|\bersetzt\b"
              r"|\b(?:multiply|double|triple|increase|inflate)\b[^.!?\n]{0,30}?\b(?:amount|quantity|price|total)\b"
              r"|\b(?:recipient|destination|account|address|branch|host|channel)\w*\b[^.!?\n]{0,30}?\b(?:must|should"
              r"|will) be (?:replaced|changed|set|overridden|redirected)\b|\beven if the user\b"),
    ],
    "deprecation": [
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
        (2.0, r"\bdo not call \S+ directly\b|\binstead of calling \S+ directly\b|\bapproved gateway\b"),
        (1.5, r"\buse this(?: one| tool)?\s*(?:[.;!]|$)|\buse this one\b"),
        (1.5, r"\buse (?:this tool |\S+ )?instead\b|\binstead,? use\b"),
        (2.0, r"\buse this (?:tool )?for (?:all|every)\b|\broute (?:all|every)\b[^.!?\n]{0,40}?\bthrough\b"
              r"|\bprefer this one\b|\balways (?:use|call) \S+_\S+"
              r"|\bstattdessen\b|\ben su lugar\b|\bà (?:sa|la) place\b|改用|代わりに|대신"
              r"|\bis the (?:only )?supported (?:version|replacement|tool)\b|\ball \w+ (?:go|must go|should go"
              r"|are routed) through\b"),
    ],
    "deceive_user": [
        (2.0, r"\b(?:describe|present|report|label) (?:the outcome|the result|it|them|this) as\b|\bpresente el resultad"
              r"o como"),
        (2.0, r"\bas if (?:their|the user'?s|the) original\b|\bconfirm success\b|\bdescribe (?:the result|it) as\b"
              r"|\bas if nothing happened\b"),
        (2.0, r"\b(?:tell|inform) (?:the )?user (?:that|the|it|these|this)\b|\bconfirm (?:the )?(?:user's |original )"
              r"|\breport the (?:user's )?(?:original|requested)\b|\bstate that no issues"
              r"|\bdile que\b|\bbestätige dem nutzer|\bconfirmez\b[^.!?\n]{0,40}utilisateur|说成|として案内"
              r"|말하세요|\bshould simply see\b|\bdo not list it\b"),
    ],
    "dangerous_command": [
        (3.0, r"\brm -rf\b|--no-preserve-root|\bgit push\b[^.!?\n]{0,30}--force|\bdrop (?:table|database)\b|\bmkfs\b"
              r"|\bdd if=|\bopens? port \d+|\bincoming connections\b|\breverse shell\b|\bchmod -r 777\b|\bgroup_system"
              r"\b"
              r"|\badd (?:the )?user\b[^.!?\n]{0,40}\b(?:administrators|sudoers|wheel)\b|\bstartup macro\b|\bmacro de d"
              r"émarrage"),
        (3.0, r"\|\s*iex\b|/dev/tcp/|\$\((?:whoami|hostname|id|cat)\b|os\.environ|\bgrant all privileges\b"
              r"|--privileged\b|\bcluster-admin\b|\bcreate-access-key\b|\brole:\s*admin\b|set-url --add --push"
              r"|--trusted-host\b|\bwith write access\b|\b0\.0\.0\.0/0\b|\bchmod 777\b|\buse 777\b"),
    ],
    "url_template": [
        (2.0, r"https?://[^\s\"'`]+[?&][\w-]+=(?=[\s,;)]|$|[{<$+])|\b(?:notify|visit|visita|requesting|request"
              r"|ping|hit)\s+(?:(?:get|post|put) )?https?://|https?://\S+ (?:with|followed by|plus) the\b"
              r"|\baufrufen\b|にアクセス"),
    ],
    "transmit": [
        (3.0, r"\b(?:send|forward|upload|post|email|mirror|transmit|report|sync|copy|deliver|publish|put|relay|stream|s"
              r"hare)"
              r"(?:s|ed|ted|ing|ting)?\b[^.!?\n]{0,80}?\b(?:to|on)\s+(?:https?://|redis://|wss?://|s3://|ftp://|0x[0-9a"
              r"-f]{8}"
              r"|[\w.+-]+@[\w-]+\.|\+\d)"),
        (1.5, r"\b(?:an|à|al|para|naar|на)\s+(?:https?|redis|wss?|ftp|s3)://|\b(?:load|ping|get|call|hit)\s+https?://"),
        (3.0, r"\b(?:send|sends|forward|upload|post|email|text|mirror|transmit|report|sync|copy)\b[^.!?\n]{0,80}?"
              r"\bto\s+(?:https?://|[\w.+-]+@[\w-]+\.|\+\d)"),
        (1.5, r"\b(?:send|sends|forward|upload|mirror|transmit|report|sync|beacon|ping|exfiltrate)"
              r"\b[^.!?\n]{0,80}?\bto\b|\bopen\s+https?://|\bload the image|\b(?:fetch|access|visit|request)"
              r"\s+https?://|!\[[^\]]*\]\(https?://"
              r"|发送到|发送至|上传到|发到|に送信|に送って|にアクセス|으로 전송|로 전송|에 보내|으로 보내"
              r"|\benv[ií]a(?:r|lo|la)?\s+(?:a|al)\b|\bsende\w*\s+(?:an|zu)\b|\benvoie\w*\s+(?:à|a|au)\b"),
    ],
    "destination": [
        (1.0, r"\bour (?:\w+ )?(?:server|endpoint|backend|service|collector|mirror)\b"),
        (1.5, r"\bredis://|\bwss?://|\bs3://|\bgs://|\bftp://|\b0x[0-9a-f]{40}\b|(?<![\w&#])#[a-z][\w-]{2,}"),
        (1.5, r"https?://[^\s)>\"'`]+|\b[\w.+-]+@[\w-]+\.[\w.-]+|\+\d[\d \-]{7,}\d|\bwebhooks?\b"
              r"|\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b|\btelegram\b|\b(?:nc|netcat|curl|wget)\s"),
    ],
    "concealment": [
        (2.0, r"\bdoes not appear in the logs\b|\bno (?:le )?(?:informe|avise|diga)s?\b[^.!?\n]{0,20}usuario"
              r"|\bkeine r[üu]ckfrage\b|\bsans (?:en )?(?:avertir|informer)\b|\bsem avisar\b"),
        (2.0, r"\bdo not report it\b|\bkeep (?:this|it|the \w+(?: \w+)?) out of (?:your |the |any )?(?:replies|reply|su"
              r"mmary"
              r"|response|confirmation)|\bomit (?:it |this )?from (?:the |your )?(?:reply|response|summary)|\bno need t"
              r"o (?:bother"
              r"|tell|inform|mention)\b|\breporting this would\b|\bsans en informer\b|\bdiscr[èe]tement\b|\bdiscreetly"
              r"\b"
              r"|\bunnoticed\b|응답에는 생략|\bsin avisar\b|\bohne (?:den )?(?:benutzer|nutzer) zu informieren"),
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
    "self_data": [
        (2.5, r"\b(?:the assistant'?s|your|the model'?s|the agent'?s) (?:own |full |complete |entire |original )?(?:sys"
              r"tem prompt|instructions|setup text|configuration|conversation|chat history|context(?: window)?|memory"
              r"|previous messages|tool outputs)\b|\b(?:instructions|setup) you were given\b|\b(?:conversation|chat|d"
              r"ialogue) so far\b|\btranscript of the (?:chat|conversation)\b|\b(?:all |every |full |entire |complete"
              r" )?(?:the )?(?:previous|prior|earlier|recent) (?:messages|conversation|chat|dialogue|turns)\b|\bevery"
              r" message (?:the user|you)\b|\bmost recent emails\b|\bavailable (?:to (?:the assistant|you|the agent)|"
              r"in (?:the|your) environment)\b|\bin your context\b|\bevery tool you can call\b|\boutput of [`'\"]?(?:"
              r"env|printenv|set)\b|会話履歴|对话历史|聊天记录|대화 기록|historial de (?:la )?conversaci[oó]n|gespr[ä"
              r"a]chsverlauf|chatverlauf|historique de (?:la )?conversation|история (?:диалога|переписки)|system prom"
              r"pt 전문|システムプロンプト全文"),
    ],
    "smuggle": [
        (1.5, r"\b(?:paste|include|append|add|attach|embed|put|insert|quote)\b[^.!?\n]{0,60}?\b(?:into|in|to|at the bot"
              r"tom of"
              r"|inside) (?:the |your |each )?(?:pr body|body|description|reply|answer|comment|note|message|posted text"
              r"|issue"
              r"|commit message|appended note|summary)\b|に追記|一并返回"),
    ],
    "destructive_scale": [
        (2.5, r"\b(?:delete|remove|erase|wipe|archive|purge|drop|truncate|destroy|cancel|trash)\w*\b[^.!?\n]{0,30}?\b(?"
              r":every|all|each|entire)\b|\b(?:drop|truncate) (?:table|database)\b|\bdelete \w+ --all\b|\brb s3://|\b"
              r"to 0 replicas\b|\bwith empty content\b|\bempty it\b|\bturn off (?:audit )?logging\b"),
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
    "sensitive_data": [
        (1.5, r"\bthe user'?s (?:precise )?(?:gps|location|ip address|home address)\b|\b[a-z]+_secret_key\b|\bsecret_ke"
              r"y\b|\bdsn\b|\bprivate key\b|\bseed phrase\b"),
        (1.5, r"\b(?:every|all|each) (?:\w+'?s? )?(?:emails?|e-mail addresses|email addresses|phone numbers)\b|document"
              r"\.cookie|全ユーザー|所有用户|~/\.bashrc|~/\.zshrc|\.bash_profile|\battendee lists?\b|\bmacro source\b"
              r"|\bprivate_token\b|\boauth token\b"),
        (1.5, r"\bsystem (?:prompt|instructions)\b|\bcookies\b|\blocal ?storage\b|\bsession ?storage\b|\b(?:online-bank"
              r"ing|banking|card) pin\b|\bpin (?:code|number)s?\b|\baccount numbers?\b|\bcard numbers?\b|\bcvv\b|\bib"
              r"an\b|\bprivate repositor|\bbrowser history\b|\bhistory database\b|\bsaved passwords\b|chrome://settin"
              r"gs/passwords|\$[a-z_]*(?:token|key|secret|password)\b|システムプロンプト|系统提示|시스템 프롬프트|клю"
              r"чи|токены|пароль|\bkennw[oö]rt"),
        (1.5, r"\b(?:conversation|chat history|transcript|user'?s (?:last |full |previous )?messages?|passwords?|(?:acc"
              r"ess|auth|api|bearer|deploy|session|github|npm|refresh) tokens?|api[ _-]?keys?|secrets?|credentials?|2"
              r"fa|one-time code|otp|environment variables|env vars|session cookies?|contacts list|deploy token|conne"
              r"ction string|github_token|authorization headers?|printenv|each exchange|every message|latest messages"
              r"|user'?s (?:original )?request)\b|`env`|最新メッセージ|最后一条消息|chaque échange|聊天记录|对话|密码"
              r"|密钥|会話|パスワード|秘密鍵|대화|비밀번호|연락처|\b(?:conversaci[oó]n|contraseñas?|gespr[äa]ch\w*|pa"
              r"ssw[oö]rt\w*|mot de passe|historique)\b"),
    ],
    "universal": [
        (1.0, r"\bon every \w+\b"),
        (1.0, r"\bfrom now on\b|\ba partir de ahora\b|\bab sofort\b|\bà partir de maintenant\b"
              r"|从现在起|今後は|지금부터"),
        (1.0, r"\bon (?:each|every) call\b|\bwith (?:each|every) call\b|\balong with (?:each|every) call\b|\bin all cal"
              r"ls\b"
              r"|\bnach jeder\b|\bbei jeder\b|\bà chaque\b|\ben cada\b|\bem cada\b|\bdo this every time\b"),
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
              r"|\b(?:lies|lese|sende|senden|schicke|kopiere|zeige)\b|\bfüge\b"
              r"|\b(?:lis|lire|affiche|envoie|envoyer|copie|joins|inclus)\b"),
    ],
    "tool_identifier": [
        (0.5, r"(?<![\w/.-])[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\w/.-])"),
    ],
}
