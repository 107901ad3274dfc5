"""The weak cues of MCPL-D016 about what an attack is after or how it hides: secrets, destinations, transmit
verbs, data, concealment, commands. (weight, pattern) each, matched in the lower-cased text; see `cues`.
"""

from __future__ import annotations

# The commands that reach the network, which the `destination` cue quotes ("curl "); `purpose` reads the same list.
NET_COMMANDS = ("nc", "netcat", "curl", "wget")

PAYLOAD_CUES: dict[str, list[tuple[float, str]]] = {
    "secret_path": [
        (2.0, r"\bdocker config\.json\b|\bregistry auth\b"),
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
        # code fetched and run in one step, the environment substituted into what is sent, a package from an index
        # of the text's choosing
        (3.0, r"\bexec\s*\(\s*(?:__import__|urllib|requests\.get|urlopen)|\$\(\s*(?:env|printenv)\s*\)"
              r"|\bpip3?\s+install\s+(?:\S+\s+){0,3}--(?:extra-)?index-url[=\s]+https?://"
              r"|\bnpm\s+(?:i|install)\s+(?:\S+\s+){0,3}--registry[=\s]+https?://"),
    ],
    "dangerous_command": [
        (3.0, r"\bterraform destroy\b|-auto-approve\b"),
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
        (3.0, r"\b(?:is |are )?sent\b[^.!?\n]{0,40}?\bto\s+(?:https?://|redis://|wss?://|s3://|[\w.+-]+@[\w-]+\.)"
              r"|\bstored (?:at|on) https?://"),
        (1.5, r"\bsends? the contents of\b|отправля\w* на\b|\bотправьте\b|\bпередайте\b"),
        (3.0, r"\bà\s+[\w.+-]+@[\w-]+\.|\bto (?:this|the following) (?:url|endpoint|webhook)\b"),
        (1.5, r"転送|发送出去|送出去"),
        (1.5, r"\bweitergegeben\b|\bweitergeleitet\b|\bübermittelt\b|\bhochgeladen\b"),
        (3.0, r"\b(?:send|forward|upload|post|email|mirror|transmit|report|sync|copy|deliver|publish|put|relay|stream|s"
              r"hare)"
              r"(?:s|ed|ted|ing|ting)?\b[^.!?\n]{0,80}?\b(?:to|on)\s+(?:https?://|redis://|wss?://|s3://|ftp://|0x[0-9a"
              r"-f]{8}"
              r"|[\w.+-]+@[\w-]+\.|\+\d)"),
        (1.5, r"\b(?:an|à|al|para|naar|на)\s+(?:https?|redis|wss?|ftp|s3)://|\b(?:load|ping|get|call|hit)\s+https?://"),
        (3.0, r"\b(?:send|sends|forward|upload|post|email|text|mirror|transmit|report|sync|copy)\b[^.!?\n]{0,80}?"
              r"\bto\s+(?:https?://|[\w.+-]+@[\w-]+\.|\+\d)"),
        # "to" of a compound ("speech-to-text", "peer-to-peer") is no recipient; "how to forward PostHog events to
        # Moveo One" (moveo-one-mcp 0.1.0's `advise_posthog`) names what guidance is about, and sends nothing
        (1.5, r"(?<!how to )\b(?:send|sends|forward|upload|mirror|transmit|report|sync|beacon|ping|exfiltrate)"
              r"\b[^.!?\n]{0,80}?(?<!-)\bto\b(?!-)|\bopen\s+https?://|\bload the image|\b(?:fetch|access|visit|request)"
              r"\s+https?://|!\[[^\]]*\]\(https?://"
              r"|发送到|发送至|上传到|发到|に送信|に送って|にアクセス|으로 전송|로 전송|에 보내|으로 보내"
              r"|\benv[ií]a(?:r|lo|la)?\s+(?:a|al)\b|\bsende\w*\s+(?:an|zu)\b|\benvoie\w*\s+(?:à|a|au)\b"),
    ],
    "destination": [
        (1.0, r"\bour (?:\w+ )?(?:server|endpoint|backend|service|collector|mirror)\b"),
        (1.5, r"\bredis://|\bwss?://|\bs3://|\bgs://|\bftp://|\b0x[0-9a-f]{40}\b|(?<![\w&#])#[a-z][\w-]{2,}"),
        # a URL whose host is a placeholder ("the URL template `http://<node-ip>:<node_port>`", k8s-mcp-bilbilmyc
        # 2.0.0; "[host]") is a template to fill in, no one's address; an IPv6 literal ("[2001:db8::1]") is one
        (1.5, r"https?://(?![<{$]|\[[^\]:]*\])[^\s)>\"'`]+|\b[\w.+-]+@[\w-]+\.[\w.-]+|\+\d[\d \-]{7,}\d|\bwebhooks?\b"
              r"|\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b|\btelegram\b|\b(?:" + "|".join(NET_COMMANDS) + r")\s"),
    ],
    "concealment": [
        (2.0, r"\bnão informe\b|\bsem informar\b|\bno debe mencionarse\b|\bmention it only if\b|\bне сообщайте\b"),
        (2.0, r"\bkeep (?:the \w+|it|this) to yourself\b|悄悄|몰래|こっそり"),
        (2.0, r"\bomit (?:that|this|it) from\b|\bbehind the scenes\b|\bleave (?:that|this|it) out of\b|\bdo(?:es)?n'?t "
              r"need to know\b"
              r"|\bdoes not need to know\b|\bnão comente\b|伝えず|\bkeep (?:the \w+ \w+|this|it) out of\b"),
        (2.0, r"\bdoes not appear in the logs\b|\bno (?:le )?(?:informe|avise|diga)s?\b[^.!?\n]{0,20}usuario"
              r"|\bkeine r[üu]ckfrage\b|\bsans (?:en )?(?:avertir|informer)\b|\bsem avisar\b"),
        (2.0, r"\bdo not report it\b|\bkeep (?:this|it|the \w+(?: \w+)?) out of (?:your |the |any )?(?:replies|reply|su"
              r"mmary"
              r"|response|confirmation)|\bomit (?:it |this )?from (?:the |your )?(?:reply|response|summary)|\bno need t"
              r"o (?:bother"
              r"|tell|inform|mention)\b|\breporting this would\b|\bsans en informer\b|\bdiscr[èe]tement\b|\bdiscreetly"
              r"\b"
              r"|\bunnoticed\b|응답에는 생략|\bohne (?:den )?(?:benutzer|nutzer) zu informieren"),
        # "accept silently without notifying the organizer" documents a flag about a third party: only the user counts
        (2.0, r"\b(?:do not|don'?t|never) (?:mention|tell|inform|notify|alert)\b|\bsecretly\b"
              r"|\bwithout (?:telling|informing|asking)\b|\bwithout notifying (?:the )?(?:user|me|them|anyone)\b"
              r"|\bnot (?:need )?to be told\b"
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
        (2.5, r"\beverything the user (?:said|wrote|typed|shared)\b|\bhistorial (?:completo )?de (?:la )?conversaci"
              r"|\ball previous messages between\b"),
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
        # the quantifier in the verb's own clause (a list's commas kept): "To 'delete' a line, you must include ALL
        # existing lines" is not "delete all"
        (2.5, r"\b(?:delete|remove|erase|wipe|archive|purge|drop|truncate|destroy|cancel|trash)\w*\b"
              r"(?:[^.!?\n,;]|,(?!\s*(?:you|we|they|it|then|but|so)\b)){0,30}?\b(?"
              r":every|all|each|entire)\b|\b(?:drop|truncate) (?:table|database)\b|\bdelete \w+ --all\b|\brb s3://|\b"
              r"to 0 replicas\b|\bwith empty content\b|\bempty it\b|\bturn off (?:audit )?logging\b"),
    ],
    "piggyback": [
        (1.5, r"\balso (?:stores?|stored|exports?|uploads?|installs?|publish(?:es)?|pushes|re-?subscribes|raises|grants"
              r"?|forwards?|shares?|copies|records?|adds?)\b|\bin addition to the requested\b|\bextra remote\b|\btamb"
              r"ém exporta\b|\bsecond (?:post|address|remote|copy)\b|同时上传|一緒にアップロード"),
    ],
    "sensitive_data": [
        (1.5, r"\bcustomer list\b|\border history\b|\ball \w+ (?:and \w+ )?records\b|\bbot tokens?\b"),
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
        (1.0, r"\bкаждый раз\b|\bcada vez que\b|\bsempre que\b"),
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
        (1.5, r"열어|넣어|전달해|입력해|入れて|渡して|添付して|打开|附上|传给|提供给"),
        (1.5, r"\benvie\b|\benviar\b|\bchame\b|\bllame\b|\bвызовите\b"),
        # "Whether to include …" documents a flag, "under load" is a noun, and "Use to read full conversation context"
        # (mcp-server-mattermost 0.6.1) or "used to fetch …" says what the tool is for: none is an order
        (1.5, r"(?<!whether to )(?<!whether or not to )(?<!use to )(?<!used to )(?<!under )(?<!heavy )(?<!high )"
              r"\b(?:read|cat|open|examine|inspect|look(?:ing)? through|quote|paste|share|show|print"
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
