"""Dump the definitions of real, published MCP servers into the benign corpus.

Each server in `servers.py` is declared at its pinned version in a throw-away repository (`npx -y pkg@X`
or `uvx --from pkg==X`), pinned with `mcp-lock lock`, and its tools, prompts, resources and resource
templates are copied out of the resulting `mcp-lock.json` exactly as pinned into
`data/benign/<package>@<version>.json`. Servers that fail to boot are recorded in
`data/benign/failures.json`; `SOURCES.md` is regenerated from both.

Usage:
  python bench/detectors/dump_benign.py [--jobs 3] [--only PACKAGE ...] [--missing]
                                        [--fresh | --fresh2 | … | --fresh31] [--timeout S]

`--fresh` dumps `servers.FRESH` into `data/benign_fresh/` instead (servers kept out of the corpus and its
vocabulary), `--fresh2` `servers.FRESH2` into `data/benign_fresh2/`, and so on for every batch of
`servers.BATCHES`. Each dump records package, version, ecosystem, dump date and
the SHA-256 of its definitions.

`--missing` dumps only servers without a file yet (resume after an interrupted run). `--until HH:MM` (UTC) starts
no boot after that time: the servers not started are left out of `failures.json` and listed in `SOURCES.md` as
not dumped yet, so a batch can be cut short and still record every failure it met.
Booting runs each package's code: run this on a machine you would run those packages on.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from servers import (  # noqa: E402
    BATCHES,
    DUMMY_ENV,
    NEEDS_MCP_1,
    SERVERS,
    Server,
)

OUT = HERE / "data" / "benign"
KINDS = ("tools", "prompts", "resources", "resourceTemplates")
BOOT_TIMEOUT = 300  # seconds per server: a cold npx/uvx install of a large package takes minutes
boot_timeout = BOOT_TIMEOUT

# PyPI packages whose console script is not named after the package.
PYPI_COMMAND: dict[str, list[str]] = {
    "serena-agent": ["serena", "start-mcp-server", "--context", "ide-assistant"],
    "office-word-mcp-server": ["word_mcp_server"],
    "office-powerpoint-mcp-server": ["ppt_mcp_server"],
    "opensearch-mcp-server-py": ["opensearch-mcp-server"],
    "kubernetes-mcp-server": ["kubernetes-mcp-server"],
    "mcp-server-browser-use": ["mcp-server-browser-use"],
    "biomcp-python": ["biomcp", "run"],
    "mcp-snowflake-server": ["mcp_snowflake_server"],
    "e2b-mcp-server": ["python", "-c", "import e2b_mcp_server; e2b_mcp_server.main()"],
    "litellm-mcp": ["litellm-agent-mcp"],
    "dartlens-mcp": ["dartlens"],
    "data-go-mcp-nts-business-verification": ["data-go-mcp.nts-business-verification"],
    "dart-mcp-kor": ["dart-mcp"],
    # The eighth batch: the one command of the package whose name says mcp (mcp-lock's boot names them).
    "fastapi-hexagon-mcp": ["hexagonal-mcp"],
    "qr-reader-mcp-server": ["qr-reader-mcp"],
    "mimir-memory-mcp": ["mimir-mcp"],
    # The ninth batch, retried: each wheel's console script from its entry_points.txt (with the subcommand its
    # README's MCP configuration gives); apifox-mcp-community has no script and its README runs the module;
    # cairn's `mcp` command imports the separate cairn-mcp-server (the `mcp` extra), pinned at the list's version.
    "apifox-mcp-community": ["python", "-m", "apifox_mcp.main"],
    "arc-builder-kit": ["arc-builder-mcp-server"],
    "archery-mcp-server": ["archery-mcp"],
    "cairn-cli": ["--with", "cairn-mcp-server==0.3.1", "cairn", "mcp"],
    "codeatlas-mcp-server": ["codeatlas", "mcp", "start"],
    "dante-ds": ["dante", "mcp", "serve"],
    "datier-mcp-server": ["datier-mcp"],
    "db-compare-mcp": ["db-compare"],
    "exceltamer": ["exceltamer-mcp"],
    "google-keep-notes-mcp": ["google-keep-mcp"],
    "graphmem-mcp": ["graph-mem", "server"],
    "jabb-cli": ["jabb", "mcp"],
    "lyma-mssql-mcp": ["mssql-mcp"],
    "matlab-mcp-python": ["matlab-mcp"],
    "mcp-service-registry": ["mcp-registry"],
    "mt5-trading-mcp": ["mt5-mcp"],
    "open-geoserver-mcp": ["geoserver-mcp"],
    "solar-data-mcp-economics": ["solar-economics-mcp"],
    "tcr-explorer": ["tcr-explorer-mcp"],
    "timeverse-agnes-imggen-mcp": ["timeverse-agnes-imggen"],
    "weather-mcp-server-beijing-pycoder-2026": ["weather-mcp-server"],
    # ... and three whose command is the package's but needs the subcommand of its README's configuration.
    "forensic-deepdive": ["forensic-deepdive", "serve", "--repo", "."],
    "pymobile-mcp": ["pymobile-mcp", "run"],
    "vouch-kb": ["vouch", "serve"],
    # The tenth batch (FRESH6), read from each wheel before any boot (never run): the wheel's only console script when
    # none is named after the package, or the one (and subcommand) its README's MCP configuration gives.
    "agent-commerce-payments-mcp": ["agent_commerce_payments_mcp"],
    "ai-self-audit-mcp": ["ai_self_audit_mcp"],
    "aidd-kos": ["aidd-kos-mcp"],
    "aika-research-mcp": ["aika", "mcp"],
    "aws-calculator-mcp": ["aws-calc-mcp"],
    "blockchain-ai-mcp": ["blockchain_ai_mcp"],
    "briefmark-mcp": ["briefmark", "serve"],
    "changelog-ai-mcp": ["changelog_ai_mcp"],
    "clearview-politics-mcp": ["clearview-mcp"],
    "codegraphy": ["codegraphy", "serve"],
    "codeseek": ["codeseek", "serve"],
    "conquerors-haki-mcp": ["conquerors-haki"],
    "cron-ai-mcp": ["cron_ai_mcp"],
    "csv-tools-ai-mcp": ["csv_tools_ai_mcp"],
    "dee-mcp": ["dee-mcp-server"],
    "deepfake-detector-mcp": ["deepfake_detector_mcp"],
    "docchat-server": ["docchat-server", "serve"],
    "fastmcp-sample-server": ["sample-mcp-server"],
    "flight-logger-mcp": ["flight_logger_mcp"],
    "fpds-os-analytics-mcp": ["fpds-mcp"],
    "git-helper-ai-mcp": ["git_helper_ai_mcp"],
    "hash-utils-ai-mcp": ["hash_utils_ai_mcp"],
    "hr-management-ai-mcp": ["hr_management_ai_mcp"],
    "kongenlabs-mcp": ["kongen-mcp"],
    "mcp-sap-datasphere-server": ["sap-datasphere-mcp"],
    "mcp-tasker": ["tasker", "mcp"],
    "meeting-summarizer-ai-mcp": ["meeting_summarizer_ai_mcp"],
    "memory-search-mcp": ["memory_search_mcp"],
    "meok-bft-governance-mcp": ["bft-governance-mcp"],
    "mt5-mcp-server": ["metatrader-mcp-server"],
    "nlp2env": ["nlp2env-mcp"],
    "password-ai-mcp": ["password_ai_mcp"],
    "pbi-enterprise-cli": ["pbi", "mcp", "serve"],
    "pdfitdown-mcp-server": ["--with", "typer==0.29.1", "pdfitdown-mcp"],  # retried: typer missing from its wheel
    "pet-care-ai-mcp": ["pet_care_ai_mcp"],
    "plagiarism-checker-ai-mcp": ["plagiarism_checker_ai_mcp"],
    "risk-assessment-ai-mcp": ["risk_assessment_ai_mcp"],
    "smos-mcp": ["smos-server"],
    "sonaloop": ["sonaloop-mcp"],
    "survey-builder-ai-mcp": ["survey_builder_ai_mcp"],
    "wikimcp": ["wikimcp", "serve"],
    "xhs-mcp-tool": ["xhs-mcp"],
    # The eleventh batch (FRESH7), read the same way before any boot: the wheel's only console script when none is
    # named after the package, the one (with its subcommand or arguments) its README's MCP configuration gives, or
    # `python -m` of the module its README names where the wheel has no console script.
    "agentos-mcp": ["agentos-server"],
    "android-mcp-server": ["python", "-m", "android_mcp.main"],
    "annomate-mcp": ["annomate"],
    "axis-foundry": ["axis-foundry-mcp"],
    "brainctl": ["brainctl-mcp"],
    "chapter-mcp": ["chapter-mcp", "--root", "."],
    "ciguard": ["ciguard", "mcp"],
    "drg-home-buying-dd": ["drg-home-buying-dd-server"],
    "envhub-mcp": ["envhub"],
    "fortigate-readonly-mcp": ["fortigate-mcp"],
    "kaelis-memory": ["kaelis-mcp"],
    "logintel-mcp": ["logintel"],
    "lumient-docstore": ["docstore-server"],
    "mcp-bookmark-server-preedew": ["mcp-bookmark-server"],
    "mcp-hl7-master": ["hl7-master"],
    "mcp-local-music-analysis": ["mcp_local_music_analysis"],
    "mcp-second-brain": ["python", "-m", "server"],
    "mcp-stockscreen": ["stockscreen"],
    "mcp-tools-py": ["mcp-tools-py", "--project-dir", "."],
    "moviefinder-cli": ["moviefinder-mcp"],
    "nb-agentic-rag": ["nb_agentic_rag"],
    "ne-mcp-eeg": ["ne-eeg-server"],
    "oci-documentation-mcp-server": ["oci_documentation_mcp_server"],
    "runbook-exec": ["runbook-exec", "mcp-server"],
    "sequential-thinking": ["mcp-sequential-thinking"],
    "strava-mcp-server-hnrx": ["strava-mcp"],
    "v4cat": ["v4cat-mcp"],
    "vexa-mcp": ["python", "-m", "vexa_mcp"],
    "weather-mcp-v1": ["weather-mcp"],
    "youtube-complete-mcp": ["youtube-complete-mcp", "serve", "--transport", "stdio"],
    # The twelfth batch (FRESH8), read the same way before any boot (where a README gives no configuration, the
    # module or subcommand its own code starts the stdio server with).
    "aitasker-mcp-server": ["aitasker-mcp"],
    "altsportsdata-data-catalog-mcp": ["altsportsdata-catalog-mcp"],
    "cc-telemetry": ["python", "-m", "claude_telemetry.mcp_server"],
    "codebook-mcp": ["codebook-server"],
    "db2-execution-wrapper": ["python", "-m", "server"],
    "eu-company-mcp-server": ["eu-company-server"],
    "genaiforgenews": ["genaiforgenews-mcp"],
    "goliath-utils-docs": ["goliath-utils-docs", "serve"],
    "injectionguard": ["python", "-m", "injectionguard.mcp"],
    "jimeng-ai-mcp": ["jimeng-mcp"],
    "kicad-mcp": ["kicad-mcp", "--editor-type", "schematic"],
    "leadhunt": ["leadhunt-mcp"],
    "llm-as-dom": ["mcp-lad"],
    "mcp-ccxt": ["mcp-ccxt", "run", "--config", "/path/to/config.json"],
    "mulder-mcp": ["mulder", "serve"],
    "mysqlmcp-r": ["mysqlmcp"],
    "nara-mcp-server": ["nara-server"],
    "netapp-aide-mcp": ["server"],
    "overseerr-mcp": ["overseerr-mcp-server"],
    "reasontrace": ["reasontrace-server"],
    "searchlight-mcp": ["searchlight"],
    "sentient-trader-mcp": ["sentient-trader"],
    "skillforge-mcp": ["skillforge"],
    "tapyr-cli": ["tapyr", "mcp"],
    "tsurugi-python-mcp-tools": ["tsurugi-mcp"],
    "yooztech-mcp-minimax-t2i": ["yooztech_mcp_minimax_t2i"],
    # The thirteenth batch (FRESH9), read the same way before any boot.
    "4sgm": ["python", "-m", "mcp_server.server"],
    "agent-commerce-mcp-server": ["agent-commerce"],
    "agent-context-optimizer-mcp": ["context-optimizer-server"],
    "ai-mcp-model-switcher": ["ai-mcp-server"],
    "ai4scholar-mcp": ["python", "-m", "ai4scholar_mcp.server"],
    "airsstool": ["airsstool-mcp"],
    "chromium-mcp-server": ["chromium-mcp"],
    "codemem": ["codemem", "mcp"],
    "datadog-cost-analyze-agent-mcp": ["datadog-cost-analyze-mcp"],
    "elchanio76-aws-pricing-calculator-mcp": ["aws-pricing-calculator-mcp"],
    "guardianshield": ["guardianshield-mcp"],
    "jenkins-mcp-tools": ["jenkins-mcp-server"],
    "legalis-mcp": ["legalis-mcp", "serve"],
    "maniple-mcp": ["maniple"],
    "mcp-email-0306": ["mcp-email"],
    "notion-mpm": ["notion-mpm", "mcp"],
    "onit-workspace": ["onit-workspace", "start", "--foreground"],
    "pdf-to-png-converter-mcp": ["pdf-to-png-mcp"],
    "quantcontext-mcp": ["quantcontext"],
    "rundbat": ["rundbat", "mcp"],
    "saitrogen-edge-tts-mcp": ["edge-tts-mcp"],
    "satoshiapi-mcp": ["python", "-m", "satoshiapi_mcp"],
    "scb-opendata-mcp": ["scb_opendata_mcp", "--transport", "stdio"],
    "survey-collector-mcp": ["survey-collector"],
    "synapses-scout": ["scout", "serve", "--mcp"],
    "ulanzi-mcp": ["python", "-m", "ulanzi_mcp.server"],
    "virp-mcp-server": ["virp-mcp"],
    "weft-graph": ["python", "-m", "weft.mcp_server"],
    "workflow-mcp-server": ["workflow-mcp"],
    # The fourteenth batch (FRESH10), read the same way before any boot.
    "cellosaurus-mcp": ["cellosaurus_mcp"],
    "containerized-strands-agents": ["containerized-strands-agents-server"],
    "datascience-ai": ["dante", "mcp", "serve"],
    "flora535-email-mcp": ["email-mcp", "stdio"],
    "iflow-mcp-0xhackerfren-frida-game-hacking-mcp": ["frida-game-hacking-mcp"],
    "iflow-mcp-2niuhe-mcp-plantuml": ["iflow-mcp_2niuhe-mcp_plantuml"],
    "iflow-mcp-aahl-mcp-vods": ["iflow-mcp_aahl-mcp-vods"],
    "iflow-mcp-ajramos-mcp-gsuite-enhanced": ["iflow-mcp_ajramos-mcp-gsuite-enhanced"],
    "iflow-mcp-amitpuri-fhir-mcp-server": ["fhir-mcp-server"],
    "iflow-mcp-apvlv-davinci-resolve-mcp": ["resolve-mcp"],
    "iflow-mcp-atlanhq-atlan-mcp-server": ["iflow-mcp_atlanhq-atlan-mcp-server"],
    "iflow-mcp-automateyournetwork-pyats-mcp": ["pyats-mcp-server"],
    "iflow-mcp-avivsinai-langfuse-mcp": ["iflow-mcp_avivsinai-langfuse-mcp"],
    "iflow-mcp-baryhuang-mcp-server-aws-resources": ["mcp-server-aws-resources"],
    "iflow-mcp-bashirk-inbound-mcp": ["iflow-mcp_bashirk-inbound-mcp"],
    "iflow-mcp-bingal-fastdomaincheck-mcp-server": ["fastdomaincheck-mcp-server"],
    "iflow-mcp-cam10001110101-mcp-server-jsoncanvas": ["mcp-server-jsoncanvas"],
    "iflow-mcp-chatmol-molecule-mcp": ["molecule-mcp"],
    "iflow-mcp-coreshub-mcp-server": ["iflow-mcp_coreshub-mcp-server"],
    "iflow-mcp-danielmeint-todo-txt-mcp": ["todo-txt-mcp"],
    "iflow-mcp-daobataotie-mssql-mcp": ["mssql-server"],
    "iflow-mcp-davidlms-learnmcp-xapi": ["learnmcp-xapi"],
    "iflow-mcp-effytech-freshdesk-mcp": ["iflow-mcp_effytech-freshdesk_mcp"],
    "iflow-mcp-emreclsr-transfermarkt-mcp": ["transfermarkt-mcp"],
    "iflow-mcp-esakrissa-weather": ["weather-mcp"],
    "iflow-mcp-fewsats-amazon-mcp": ["amazon-mcp"],
    "iflow-mcp-fish0710-excel-mcp-server": ["excel-mcp-server"],
    "iflow-mcp-floleuerer-deutsche-gesetze-mcp": ["deutsche-gesetze-mcp"],
    "iflow-mcp-galprz-grep-mcp": ["grep-mcp"],
    "iflow-mcp-greatscottymac-context-portal": ["conport-mcp", "--mode", "stdio", "--workspace_id", "."],
    "iflow-mcp-gudastudio-groksearch": ["iflow-mcp_gudastudio-groksearch"],
    "iflow-mcp-hanweg-mcp-tool-builder": ["tool-builder"],
    "iflow-mcp-jaipandya-product-hunt-mcp": ["product-hunt-mcp"],
    "iflow-mcp-jayimu-wireshark-mcp": ["wireshark-mcp"],
    "iflow-mcp-johannhartmann-mcp-code-analysis-server": ["mcp-code-server"],
    "iflow-mcp-kandrwmrtn-cplusplus-mcp": ["cpp-mcp-server"],
    "iflow-mcp-kjozsa-jenkins-mcp": ["jenkins-mcp"],
    "iflow-mcp-koomook-mcp-nps-business-enrollment": ["mcp-nps-business-enrollment"],
    "iflow-mcp-martinbowling-thoughtful-claude": ["thoughtful-claude"],
    "iflow-mcp-matsengrp-pdf-navigator-mcp": ["pdf-navigator-mcp"],
    "iflow-mcp-maxim-saplin-mcp-safe-local-python-executor": ["iflow-mcp_maxim-saplin-mcp_safe_local_python_executor"],
    "iflow-mcp-memovai-memov": ["mem-mcp-launcher", "stdio", "."],
    "iflow-mcp-neo4j-contrib-gds-agent": ["gds-agent"],
    "iflow-mcp-netanelbollag-simple-psql-mcp": ["postgres"],
    "iflow-mcp-ohnicholas93-payload-mcp-server": ["payload-mcp-server"],
    "iflow-mcp-orinachum-reachy-mini-mcp": ["reachy-mini-mcp"],
    "iflow-mcp-patronus-ai-patronus-mcp-server": ["patronus-mcp-server"],
    "iflow-mcp-phelanshao-plumed2-mcp-server": ["plumed2-mcp-server"],
    "iflow-mcp-philschmid-code-sandbox-mcp": ["code-sandbox-mcp"],
    "iflow-mcp-possible055-relace-mcp": ["relace-mcp"],
    "iflow-mcp-pragmar-mcp-server-webcrawl": ["mcp-server-webcrawl"],
    "iflow-mcp-quentincody-github-graphql-mcp-server": ["github-graphql-mcp-server"],
    "iflow-mcp-r-brink-polars-mcp": ["iflow-mcp_r-brink-polars-mcp"],
    "iflow-mcp-rahulvgmail-codeintelimcp": ["code-intel-mcp"],
    "iflow-mcp-rdondeti-codegrok-mcp": ["iflow-mcp_rdondeti-codegrok-mcp"],
    "iflow-mcp-redhat-community-ai-tools-slack-mcp": ["slack-mcp"],
    "iflow-mcp-rekklesna-proxmox-mcp": ["proxmox-mcp"],
    "iflow-mcp-sarthakkimtani-image-gen": ["iflow-mcp_sarthakkimtani-image-gen"],
    "iflow-mcp-simon-kansara-ableton-live-mcp-server": ["ableton-live-mcp-server"],
    "iflow-mcp-simonguest-microbit-mcp": ["iflow-mcp_simonguest-microbit-mcp"],
    "iflow-mcp-skyworkai-mureka-mcp": ["iflow-mcp_skyworkai-mureka-mcp"],
    "iflow-mcp-statespace-tech-mcp-server-http-request": ["iflow-mcp_statespace-tech-mcp-server-http-request"],
    "iflow-mcp-stephen9412-roc-cwa-mcp": ["roc-cwa-mcp"],
    "iflow-mcp-sundayz-hunter-mcp-recon": ["iflow-mcp_sundayz-hunter-mcp-recon"],
    "iflow-mcp-swairshah-zotero-mcp": ["zotero-mcp-server"],
    "iflow-mcp-szeider-consult7": ["consult7", "dummy-value-for-listing-only"],
    "iflow-mcp-takashiishida-arxiv-latex-mcp": ["arxiv-latex-mcp"],
    "iflow-mcp-thinkinai-hackathon-zim-mcp-server": ["zim-mcp-server"],
    "iflow-mcp-toby1123yjh-arthas-mcp-server": ["iflow-mcp_toby1123yjh-arthas-mcp-server"],
    "iflow-mcp-traceloop-opentelemetry-mcp-server": ["opentelemetry-mcp"],
    "iflow-mcp-twchad-meticulous-mcp": ["iflow-mcp_twchad-meticulous-mcp"],
    "iflow-mcp-upamune-human-mcp": ["human-mcp"],
    "iflow-mcp-vincentf305-mcp-server-deepseek": ["deepseek-server"],
    "iflow-mcp-vzeman-odoo-mcp-server": ["odoo-mcp-server"],
    "kalshi-mcp": ["python", "-m", "kalshi_mcp"],
    "linkedin-mcp-scheduler-ldraney": ["linkedin-mcp-scheduler"],
    "mcp-ontology-annotator": ["ontology-annotator"],
    "openstreetmap-mcp": ["osm-mcp-server"],
    "rasdaman-mcp-fastmcp": ["rasdaman-mcp"],
    "sql-connector-mcp": ["python", "-m", "sql_connector_mcp.server"],
    # The fifteenth batch (FRESH11), read the same way before any boot.
    "a-mem": ["a-mem-mcp"],
    "chronulus-mcp-fastmcp": ["chronulus-mcp"],
    "context-engineering-mcp-slicenfer": ["context-mcp"],
    "iflow-mcp-9crusher-mcp-server-kalshi": ["start"],
    "iflow-mcp-barvhaim-remy-mcp": ["remy-mcp"],
    "iflow-mcp-bcharleson-instantly-mcp": ["instantly-mcp"],
    "iflow-mcp-contextualai-contextual-mcp-server": ["iflow-mcp-contextualai-contextual-multi-agent"],
    "iflow-mcp-cyberchitta-scrapling-fetch-mcp": ["iflow-mcp_cyberchitta_scrapling-fetch-mcp"],
    "iflow-mcp-drabreu-alex-mcp": ["alex-mcp"],
    "iflow-mcp-fortunto2-prefect-mcp-server": ["prefect-mcp-server"],
    "iflow-mcp-ghchen99-mcp-musescore": ["musescore-mcp"],
    "iflow-mcp-gongrzhe-hitl-mcp-server": ["hitl-mcp-server"],
    "iflow-mcp-ibaic-cobalt-strike-mcp": ["cobalt-strike-mcp"],
    "iflow-mcp-iflytek-ifly-workflow-mcp-server": ["ifly_workflow_mcp_server"],
    "iflow-mcp-itsdarianngo-mcp-server-litellm": ["mcp-server-litellm"],
    "iflow-mcp-jmagar-unraid-mcp": ["unraid-mcp-server"],
    "iflow-mcp-joelio-stocky": ["stocky"],
    "iflow-mcp-joshmayerr-mcp-x": ["mcp-x"],
    "iflow-mcp-konippi-aws-blackbelt-mcp-server": ["aws-blackbelt-mcp-server"],
    "iflow-mcp-kryzo-mcp-bibliotheque-nationale-de-france": ["bnf-server"],
    "iflow-mcp-labeveryday-mcp-pdf-reader": ["mcp-pdf-reader"],
    "iflow-mcp-latinogino-prestashop-mcp": ["prestashop-mcp"],
    "iflow-mcp-lauriewired-ghidramcp": ["ghidra-mcp"],
    "iflow-mcp-lazy-importer-die": ["die-server"],
    "iflow-mcp-musantro-iracing-mcp": ["iracing-mcp"],
    "iflow-mcp-radostkali-gitlab-mcp-server": ["gitlab-mcp-server"],
    "iflow-mcp-scgreenhalgh-nanokvm-mcp": ["nanokvm-mcp"],
    "iflow-mcp-scimcp-owl-mcp": ["owl-mcp"],
    "iflow-mcp-tcsavage-obsidian-index": [
        "obsidian-index", "mcp", "--database", "/tmp/mcp-lock-bench-obsidian.db", "--vault", "/tmp",
    ],
    "iflow-mcp-topoteretes-cognee-mcp": ["cognee-mcp"],
    "iflow-mcp-ttjslbz001-mcp-server-akshare": ["akshare-mcp"],
    "iflow-mcp-vkdnjznd-crypto-mcp": ["crypto-mcp"],
    "iflow-mcp-vredrick-react-native-godot-mcp": ["react-native-godot-mcp"],
    "iflow-mcp-wukan1986-akshare-mcp": ["akshare_mcp"],
    "iflow-mcp-ydb-platform-ydb-mcp": ["ydb-mcp"],
    "iflow-mcp-zhaoyouj-mcp-slicer": ["mcp-slicer"],
    "jcgraph": ["python", "-m", "jcgraph.server.mcp_server"],
    "mysql-mcp-server-ddz": ["mysql_mcp_server_ddz"],
    "paddleocr-mcp-server": ["paddleocr-mcp"],
    "pdf2md-mcp-fastmcp": ["pdf2md-mcp"],
    "psm-davinci-resolve-mcp": ["davinci-resolve-mcp"],
    "rag-memory": ["rag-mcp-stdio"],
    "runnermcp": ["cli-runner-mcp"],
    "scout-code-navigator": ["scout"],
    "shuttlet-claude-opus": ["shuttlet_claude_opus"],
    "wine-semantic-search": ["mcp-server-wine"],
    "xukaaaa-redmine-mcp": ["redmine-mcp-server"],
    # The sixteenth batch (FRESH12), read the same way before any boot.
    "agent-skills-mcp-gkzhb": ["agent-skills"],
    "ambivo-mcp-server-fastmcp": ["ambivo-mcp-server"],
    "bach-ai-content-detector-ai-gpt": ["bach_ai_content_detector_ai_gpt"],
    "bach-envato-downloader-api1": ["bach_envato_downloader_api1"],
    "bach-get-list-of-companies": ["bach_get_list_of_companies"],
    "bach-google-keyword-insight1": ["bach_google_keyword_insight1"],
    "bach-google-news13": ["bach_google_news13"],
    "bach-google-news22": ["bach_google_news22"],
    "bach-instagram120": ["bach_instagram120"],
    "bach-linkedin-bulk-data-scraper": ["bach_linkedin_bulk_data_scraper"],
    "bach-lorem-ipsum-by-api-ninjas": ["bach_lorem_ipsum_by_api_ninjas"],
    "bach-netdetective": ["bach_netdetective"],
    "bach-news-article-data-extract-and-summarization1": ["bach_news_article_data_extract_and_summarization1"],
    "bach-ny-times-news-api": ["bach_ny_times_news_api"],
    "bach-perplexity2": ["bach_perplexity2"],
    "bach-realty-in-au": ["bach_realty_in_au"],
    "bach-realty-in-ca1": ["bach_realty_in_ca1"],
    "bach-riddles-by-api-ninjas": ["bach_riddles_by_api_ninjas"],
    "bach-subdomain-scan1": ["bach_subdomain_scan1"],
    "bach-truecaller-data2": ["bach_truecaller_data2"],
    "bach-twitter-api45": ["bach_twitter_api45"],
    "bach-youtube-to-mp315": ["bach_youtube_to_mp315"],
    "bach-yt-api": ["bach_yt_api"],
    "capinvest-mcp-server": ["--with", "capinvest==1.0.3", "capinvest-mcp", "--transport", "stdio"],
    "chanty-mcp-server": ["chanty-mcp"],
    "comfyui-easy-mcp": ["comfy-mcp-server"],
    "excel-mcp-toon": ["excel-mcp-toon", "stdio"],
    "gramps-ez-mcp": ["gramps-ez-mcp", "Gramps Example"],
    "hjeon139-mcp-outofcontext": ["hjeon139_mcp_outofcontext"],
    "iflow-mcp-claude-document-mcp": ["claude-document-mcp"],
    "iflow-mcp-gongrzhe-audio-mcp-server": ["audio-mcp-server"],
    "iflow-mcp-harvest-mcp": ["harvest-mcp-server"],
    "iflow-mcp-hmbown-aleph-rlm": ["aleph-mcp-local"],
    "iflow-mcp-phelanshao-abacus-mcp-server": ["abacus-mcp-server"],
    "iflow-mcp-ree-mcp": ["ree-mcp"],
    "iflow-mcp-shane-kercheval-mcp-this": ["mcp-this"],
    "iflow-mcp-telegram-mcp": ["iflow-mcp_telegram-mcp"],
    "komodor-mcp": ["komodor-mcp", "--transport", "stdio"],
    "mcp-case-server": ["load-case-data"],
    "mseep-french-tax-mcp": ["french-tax-mcp"],
    "mseep-rememberizer-mcp-quanghs-gdrive": ["rememberizer-mcp-quanghs-gdrive"],
    "mseep-repo-graphrag-mcp": ["repo-graphrag-mcp"],
    "mseep-workspace-qdrant-mcp": ["workspace-qdrant-mcp"],
    "mseep-xtm-mcp": ["python", "-m", "opencti_mcp.server"],
    "opmanager-mcp-server": ["opmanager-mcp"],
    "patent-mcp-server-shunjian": ["patent-mcp-server"],
    "powerbi-mcp-server": ["powerbi-mcp"],
    "quickbooks-mcp-server": ["quickbooks-mcp"],
    "realize-mcp": ["realize-mcp-server"],
    "telegram-reader-mcp": ["telegram-mcp"],
    "vectara-mcp": ["vectara-mcp", "--transport", "stdio"],
    "xero-mcp-server": ["xero-mcp"],
    "xieyyyy123-mcp-time-server": ["mcp-cuc-fwj"],
    "zoho-crm-mcp-server": ["zoho-crm-mcp"],    # The seventeenth batch (FRESH13), read the same way before any boot.
    "ai-lab-testing": ["python", "-c", "import asyncio; from lab_testing.server import main; asyncio.run(main())"],
    "cedarscript-mcp-server": ["cedarscript-mcp"],
    "codeguard-lgedv": ["codeguard"],
    "futurehouse-mcp": ["futurehouse-mcp", "stdio"],
    "graphiti-memory": ["graphiti-mcp-server"],
    "iflow-mcp-adx-mcp-server": ["adx-mcp-server"],
    "iflow-mcp-blockbeats-mcp": ["blockbeats-mcp"],
    "iflow-mcp-burpsuite-mcp-server": ["python", "-m", "mcp_server"],
    "iflow-mcp-cinema4d-mcp": ["cinema4d-mcp-wrapper"],
    "iflow-mcp-codealive-mcp": ["codealive-mcp"],
    "iflow-mcp-crypto-projects-mcp": ["crypto-projects-mcp"],
    "iflow-mcp-discord-raw-mcp": ["discord-raw-mcp"],
    "iflow-mcp-elasticsearch7-mcp-server": ["elasticsearch7-mcp-server"],
    "iflow-mcp-epss-mcp": ["epss_mcp"],
    "iflow-mcp-fast-markdown-mcp": ["python", "-m", "fast_markdown_mcp.server"],
    "iflow-mcp-geekbot-mcp": ["geekbot-mcp"],
    "iflow-mcp-gmail-mcp-server": ["gmail-mcp-server"],
    "iflow-mcp-higress-ai-search-mcp-server": ["iflow-mcp_higress-ai-search-mcp-server"],
    "iflow-mcp-linkedin-mcp": ["linkedin-mcp"],
    "iflow-mcp-mcp-3d-relief": ["iflow-mcp_mcp_3d_relief"],
    "iflow-mcp-mcp-dst": ["mcp-dst"],
    "iflow-mcp-mcp-jira": ["mcp-jira"],
    "iflow-mcp-mcp-kali-server": ["mcp-kali-server"],
    "iflow-mcp-mcp-logic": ["mcp_logic"],
    "iflow-mcp-mcp-rquest": ["mcp-rquest"],
    "iflow-mcp-mcp-searxng-enhanced": ["python", "-m", "mcp_server"],
    "iflow-mcp-mcp-server-bing": ["mcp-server-bing"],
    "iflow-mcp-mcp-server-fetch-python": ["mcp-server-fetch-python"],
    "iflow-mcp-mcp-server-iceberg": ["mcp-server-iceberg"],
    "iflow-mcp-mcp-server-obsidian-omnisearch": ["mcp-server-obsidian-omnisearch", "/tmp"],
    "iflow-mcp-mcp-server-trino": ["mcp_server_trino"],
    "iflow-mcp-mcp-server-zoomeye": ["mcp-server-zoomeye"],
    "iflow-mcp-mcp-simple-arxiv": ["mcp-simple-arxiv"],
    "iflow-mcp-mcp-solver": ["mcp-solver"],
    "iflow-mcp-mcp-think-tool": ["mcp-think-tool"],
    "iflow-mcp-mcp-windows-website-downloader": ["mcp-windows-website-downloader"],
    "iflow-mcp-medadapt-content-server": ["medadapt-content-server"],
    "iflow-mcp-mssql-mcp-server": ["mssql_mcp_server"],
    "iflow-mcp-notion-mcp": ["notion-mcp"],
    "iflow-mcp-openai-mcp": ["openai-mcp"],
    "iflow-mcp-openai-websearch-mcp": ["openai-websearch-mcp"],
    "iflow-mcp-polymarket-mcp": ["polymarket-mcp"],
    "iflow-mcp-searchapi-mcp": ["searchapi-mcp"],
    "iflow-mcp-speckle-mcp": ["speckle-mcp"],
    "iflow-mcp-tradingview-mcp": ["tradingview-mcp"],
    "iflow-mcp-trakt-mcp-server": ["trakt-mcp-server"],
    "iflow-mcp-unichat-mcp-server": ["unichat-mcp-server"],
    "iflow-mcp-web-browser-mcp-server": ["web-browser-mcp-server"],
    "iflow-mcp-yelp-mcp": ["mcp-yelp-agent"],
    "iflow-mcp-youtube-mcp": ["youtube-mcp"],
    "iflow-mcp-z3": ["z3-mcp"],
    "iflow-mcp-zettelkasten-mcp": ["zettelkasten-mcp"],
    "imagenx": ["imagenx", "server"],
    "imgenx-mcp": ["imgenx", "server"],
    "iso-mcp-server": ["iso-mcp"],
    "jenkins-ai-optimizer": ["jenkins_mcp_enterprise", "--transport", "stdio"],
    "matlab-mcp-server": ["matlab-mcp"],
    "mcp-devdiag": ["mcp-devdiag", "--stdio"],
    "mcp-fred": ["python", "-m", "mcp_fred"],
    "mcp-m365-mgmt": ["m365-mgmt"],
    "mcp-pptx-tools": ["python", "-m", "powerpoint_mcp.server"],
    "mqtt-mcp-server": ["python", "-m", "mqtt_mcp.server"],
    "org-roam-mcp": ["org-roam-mcp", "--stdio"],
    # The eighteenth batch (FRESH14), read the same way before any boot.
    "bing-image-search-mcp": ["python", "-m", "bing_image_search_mcp.server"],
    "code-graph-rag-mcp": ["code-graph-rag-mcp", "serve"],
    "context-local-server": ["context-server"],
    "exiftool-mcp": ["python", "-m", "exiftool_mcp.server"],
    "iflow-mcp-chess-mcp": ["chess-mcp"],
    "iflow-mcp-emqx-mcp-server": ["emqx-mcp-server"],
    "iflow-mcp-logseq-mcp": ["logseq-mcp"],
    "iflow-mcp-mcp-azure-devops": ["mcp-azure-devops"],
    "iflow-mcp-mcp-pinot-server": ["mcp-pinot"],
    "iflow-mcp-mcp-server-canteen": ["mcp-server-canteen"],
    "iflow-mcp-mindmap-mcp-server": ["mindmap-mcp-server"],
    "iflow-mcp-reddit-research-mcp": ["reddit-mcp"],
    "iflow-mcp-terminal-controller": ["terminal_controller"],
    "iflow-mcp-titan-mind-whatsapp-mcp": ["titan-mind-mcp"],
    "iflow-mcp-yourware-mcp": ["yourware-mcp", "stdio"],
    "jira-mcp-simple": ["jira-mcp", "--instance", "bench"],
    "jnpr-pathfinder-mcp": ["jnpr_pathfinder_mcp"],
    "mcp-seniverse-weather-chenzp": ["mcp-seniverse-weather"],
    "mcp-server-apache-airflow-fastmcp": ["mcp-server-apache-airflow"],
    "npi-registry-mcp-server-fastmcp": ["npi-registry-mcp-server"],
    "repo-architecture-mcp-server": ["repo-architecture-mcp"],
    "spice-labs-mcp": ["python", "-m", "mcp.main"],
    "superset-mcp-server": ["python", "-m", "superset_mcp_server.mcp_server"],
    "timesheet-mcp-server": ["python", "-m", "src.server"],
    # The nineteenth batch (FRESH15), read the same way before any boot.
    "aws-blogs-mcp-server": ["python", "-m", "aws_blogs_mcp_server.server"],
    "lineshopping-api-mcp": ["lineshopping-mcp"],
    "mcp-bitbucket-review": ["mcp-bitbucket-review-server"],
    "mhjsmap": ["python", "-m", "mhjsmap.mcpmap"],
    "mseep-bicscan-mcp": ["bicscan-mcp"],
    "mseep-cmd-line-mcp": ["cmd-line-mcp"],
    "mseep-cryo-mcp": ["cryo-mcp"],
    "mseep-daytona-mcp-interpreter": ["python", "-m", "daytona_mcp_interpreter.server"],
    "mseep-eka-mcp-server": ["eka_mcp_server", "--eka-api-host", "http://127.0.0.1:9"],
    "mseep-futu-stock-mcp-server": ["python", "-m", "futu_stock_mcp_server.server"],
    "mseep-gemini-lg-mcp": ["python", "-m", "src.server"],
    "mseep-govee-mcp-server": ["python", "-m", "govee_mcp_server.server"],
    "mseep-malaysia-prayer-time": ["python", "-m", "malaysia_prayer_time"],
    "mseep-mcp-bonusly": ["mcp-bonusly"],
    "mseep-mcp-filesystem": ["mcp-filesystem"],
    "mseep-mcp-foundry": ["run-azure-ai-foundry-mcp"],
    "mseep-mcp-google-suite": ["mcp-google-suite"],
    "mseep-mcp-oceanbase": ["okctl_mcp_server"],
    "mseep-mcp-server-aact": ["mcp-server-aact"],
    "mseep-mcp-server-any-openapi": ["mcp-server-any-openapi"],
    "mseep-mcp-server-code-extractor": ["mcp-server-code-extractor"],
    "mseep-mcp-server-monday": ["mcp-server-monday"],
    "mseep-mcp-server-notify": ["mcp-server-notify"],
    "mseep-mcp-server-unipile": ["mcp-server-unipile"],
    "mseep-mcp-simple-openai-assistant": ["mcp-simple-openai-assistant"],
    "mseep-mitmproxy-mcp": ["mitmproxy-mcp"],
    "mseep-mockloop-mcp": ["mockloop-mcp"],
    "mseep-mysqldb-mcp-server": ["mysqldb-mcp-server"],
    "mseep-odoo-mcp": ["odoo-mcp"],
    "mseep-oracledb-mcp-server": ["oracledb_mcp_server"],
    "mseep-rmcp": ["rmcp", "start"],
    "mseep-scrapegraph-mcp": ["scrapegraph-mcp"],
    "mseep-sodukusolver": ["sodukusolver"],
    "mseep-surveymars-mcp": ["surveymars-mcp"],
    "nthu-complaints-mcp": ["nthu-complaints-mcp", "serve"],
    "un-datacommons-mcp": ["un-datacommons-mcp", "serve", "stdio"],
    # The twentieth batch (FRESH16), read the same way before any boot.
    "aci-mcp": ["aci-mcp", "unified-server", "--linked-account-owner-id", "bench"],
    "chart-genius-mcp": ["chart-genius"],
    "containerizedcodeexecutermcp": ["python", "-m", "main"],
    "csv-mcp-server": ["csv-editor"],
    "currency-mcp": ["python", "-m", "currency_mcp_server"],
    "data-go-mcp-apartment-trade": ["data-go-mcp.apartment-trade"],
    "data-go-mcp-fsc-financial-info": ["data-go-mcp.fsc-financial-info"],
    "docsray-mcp": ["docsray-mcp", "start"],
    "expedia-travel-recommendations-mcp": ["expedia_travel_recommendations_mcp"],
    "github-issue-parser-mcp": ["github-issue-parser"],
    "google-workspace-mcp-hotfix": ["google-workspace-worker"],
    "hl-mcp-server": ["hyperliquid_server"],
    "mcp-s3": ["mcp-s3", "--root", "/tmp"],
    "mcp-youtube-extractor": ["mcp_youtube_extractor"],
    "ml-training-init-mcp": ["ml-training-init"],
    "nexonco-mcp": ["nexonco"],
    "rag-mcp-server-lizhibing": ["rag-mcp-server"],
    "runmcp-in-e2b": ["runmcp-in-e2b", "--transport", "stdio"],
    "solargis-documentation-mcp-server": ["solargis.documentation-mcp-server"],
    "spec-driven-mcp": ["spec-mcp-stdio"],
    "tagny-mcp-server": ["tagny-mcp-server", "--transport", "stdio"],
    "ticktick-mcp-v2": ["ticktick-mcp", "run"],
    "todo-mcp-server": ["todo-mcp-server", "--api-url", "http://127.0.0.1:9", "--api-token", "bench"],
    "translink-mcp": ["python", "-m", "mcp_server_translink"],
    "vbnmxcz-mcp-server": ["yunxin_mcp_server"],
    "volute-xls": ["volute-xls-local", "--transport", "stdio"],
    # The twenty-first batch (FRESH17), read the same way before any boot.
    "agile-mcp-server": ["agile-mcp-server", "start"],
    "awslabs-ec2-mcp-server": ["awslabs.ec2-mcp-server"],
    "binance-futures-mcp": ["binance-mcp-server"],
    "card-magic-mcp": ["card_magic_stdio"],
    "carey-mcp-video": ["carey_mcp_video"],
    "ctf-mcp-jira": ["ctf-mcp-jira-server"],
    "cyber-sentinel-mcp": ["cyber-sentinel"],
    "eg4-mcp-server": ["python", "-m", "eg4_mcp_server"],
    "hkopenai-hk-climate-mcp-server": ["python", "-m", "hkopenai.hk_climate_mcp_server"],
    "llm-todo-mcp-mao": ["todo-mcp-server"],
    "math-mcp-server-testing": ["math-mcp-server"],
    "mcp-notes-server": ["python", "-m", "mcp_notes_server.server"],
    "mcp-stock-server": ["python", "-m", "mcp_stock_server.main"],
    "mseep-claude-desktop-memory-bank": ["python", "-m", "memory_bank_server"],
    "mseep-optuna-mcp": ["python", "-m", "optuna_mcp"],
    "reddit-mcp-dark": ["python", "-m", "reddit_mcp.server"],
    "shippo-mcp": ["shippo-mcp", "stdio"],
    "skypulse-mcp": ["python", "-m", "server"],
    "slidesmith": ["slidesmith", "serve"],
    "termivls": ["termivls", "run"],
    "test-mcp-tcl": ["python", "-c", "import test_mcp_tcl; test_mcp_tcl.main()"],
    "uh-joan-pubmed-mcp-server": ["python", "-m", "pubmed_server"],
    # The twenty-second batch (FRESH18), read the same way before any boot.
    "arxiv-search-mcp": ["python", "-m", "arxiv_search_mcp"],
    "ereach-douyin-mcp-server": ["ereach_douyin_mcp_server"],
    "honeybadger-mcp-server": ["honeybadger-mcp-server", "--transport", "stdio"],
    "just-facebook-mcp": ["just_facebook_mcp"],
    "mcp-abc-mock": ["python", "-m", "mcp_abc_mock"],
    "mcp-psilo-mock": ["python", "-m", "mcp_psilo_mock"],
    "moodle-dev-mcp": ["moodle_dev_mcp"],
    "mseep-awslabs-core-mcp-server": ["python", "-m", "awslabs.core_mcp_server.server"],
    "mseep-mcp-document-reader": ["mcp-document-reader"],
    "p6plab-azure-pricing-mcp-server": ["p6plab.azure-pricing-mcp-server"],
    "qonto-mcp-server": ["qonto-mcp-server", "--api-key", "bench:bench"],
    "tdd-mcp-server": ["tdd-mcp-server", "run"],
    "trading-economics-calendar-mcp": ["trading-economics-mcp"],
    # The twenty-third batch (FRESH19), read the same way before any boot.
    "askneedl-mcp-server": ["python", "-m", "askneedl_mcp_server"],
    "bangla-news-mcp": ["python", "-m", "bangla_news_mcp"],
    "boostspace-mcp-server": ["python", "-m", "boostspace_mcp.server"],
    "challenge-mcp": ["python", "-m", "challenge_mcp.server"],
    "chroma-mcp-server": ["chroma-mcp-server", "--mode", "stdio"],
    "gomyck-mcp": ["excel_read"],
    "hwmcp": ["mcp-document-reader"],
    "jira-mcp-server": ["jira-mcp"],
    "ldqn97-mysql-mcp-server": ["python", "-m", "ldqn97_mysql_mcp.server"],
    "llm-wrapper-mcp-server": ["cli"],
    "mcp-mysql-connect": ["mcp_mysql_connect"],
    "mseep-luma-ai-mcp-server": ["luma-ai-mcp-server"],
    "mseep-mcp-llms-txt": ["python", "-m", "mcp_llms.llms_txt"],
    "mseep-mcp-nefino": ["mcp-nefino"],
    "mseep-mcp-python": ["mcp-python"],
    "mseep-mcp-remote-macos-use": ["mcp_remote_macos_use"],
    "mseep-radarr-sonarr-mcp": ["python", "-m", "radarr_sonarr_mcp.server"],
    "mseep-sec-edgar-mcp": ["python", "-c", "import sys, sec_edgar_mcp as p; sys.path[:0] = list(p.__path__); "
                                            "from sec_edgar_mcp.server import mcp; mcp.run()"],
    "nasdaq-data-link-mcp-os": ["python", "-c", "from nasdaq_data_link_mcp_os.server import mcp; mcp.run()"],
    "news-server": ["python", "-m", "news_server.server"],
    "playwright-server-custom": ["playwright-server"],
    "stock-sentiment": ["python", "-m", "stockSentiment.server"],
    "ton-mcp-server": ["python", "-m", "tonmcp.mcp_server"],
    "trade-mcp": ["trade-mcp-serve", "--venue", "axgrad_game_1", "--axgrad-key", "bench"],
    "visacontrol": ["python", "-m", "main"],
    # The twenty-fourth batch (FRESH20), read the same way before any boot.
    "biggo-mcp-server": ["BigGo-MCP-Server"],
    "cointelegraph-mcp": ["python", "-m", "main"],
    "ecovacs-robot-mcp": ["python", "-m", "ecovacs_robot_mcp"],
    "mcp-math-server": ["mcp-math"],
    "mcp-server-repairworld": ["python", "-m", "mcp_server_repairworld"],
    "moneymcp": ["mymcp"],
    "mseep-pypi-publish-49e8e82122f247c6b62edef23c48241e": ["qanon_mcp"],
    "octagon-vc-agents": ["octagon_vc_agents", "run"],
    "orange-dappier-mcp": ["python", "-c", "from src.dappier_mcp import main; main()"],
    "orange-k8s-mcp-server": ["python", "-m", "k8s_mcp_server"],
    "orange-mcp-salesforce-connector": ["salesforce"],
    "orange-mcp-server-headless-gmail": ["python", "-c", "from src.mcp_server_headless_gmail import main; main()"],
    "orange-mcp-server-make": ["python", "-c", "from src.mcp_server_make import main; main()"],
    "stela-mcp": ["python", "-c", "import asyncio; from stela_mcp.server import main; asyncio.run(main())"],
    "youtrack-mcp": ["python", "-m", "server"],
    # The twenty-fifth batch (FRESH21), read the same way before any boot.
    "asterisk-mcp-server": ["asterisk-mcp"],
    "cortellis-mcp": ["python", "-m", "cortellis_mcp"],
    "mcp-browser-use-tools": ["mcp_server"],
    "mcp-server-software": ["python", "-m", "mcp_server_software"],
    "serp-geo-mcp": ["python", "-m", "serp_geo_mcp.server"],
    # The twenty-sixth batch (FRESH22), read the same way before any boot.
    "aihydro-tools": ["aihydro-mcp"],
    "aquashield-mcp": ["python", "-m", "aquashield_mcp", "--server"],
    "audio-transcribe-cli-mcp": ["audio-transcribe-mcp"],
    "axiom-meridian": ["meridian-mcp"],
    "bedrok": ["bedrok", "serve"],
    "cellarbrain": ["cellarbrain", "mcp"],
    "copernicus-mcp": ["copernicus-mcp", "serve"],
    "ddflow-mcp": ["ddflow-mcp"],
    "django-orm-lens": ["django-orm-lens-mcp"],
    "dotagent-web-research": ["web-research-mcp"],
    "fatebridge": ["fatebridge-mcp"],
    "findgoods-mcp-server": ["python", "-m", "findgoods_mcp"],
    "git-into-gsoc": ["git-into-gsoc", "mcp"],
    "global-executables": ["global-executables", "mcp"],
    "mcp-librenms": ["python", "-c", "from mcp_librenms.server import mcp; mcp.run(transport='stdio')"],
    "mcp-server-for-splunk": ["python", "-m", "src.server", "--transport", "stdio"],
    "noetrail": ["noetrail-mcp"],
    "oi-browser": ["python", "-m", "oi_browser.mcp_server"],
    "personal-finance-mcp-sanketk": ["python", "-c",
        "import sys, personal_finance_mcp, personal_finance_mcp.logic; "
        "sys.modules['finance_mcp'] = personal_finance_mcp; "
        "sys.modules['finance_mcp.logic'] = personal_finance_mcp.logic; "
        "from personal_finance_mcp.server import main; main()"],
    "pulselake-cli": ["pulselake", "mcp", "serve"],
    "quotable-mcp": ["quotable-mcp", "serve"],
    "sift-rag": ["sift-rag", "serve", "--stdio"],
    "wxq": ["wxq-mcp"],
    "zizhenghua-mcp": ["quant-data-mcp"],
    # The twenty-seventh batch (FRESH23), read the same way before any boot.
    "agent-dispatch": ["agent-dispatch", "serve"],
    "agent-skill-search": ["skill-search-mcp"],
    "agent-spend-mandate-budget-ledger-verifier-mcp": ["spend-mandate-mcp"],
    "agentpit-akshare-mcp": ["akshare-mcp"],
    "agentspec-cli": ["python", "-m", "agentspec.mcp.server"],
    "awslabs-healthimaging-mcp-server": ["awslabs.healthimaging-mcp-server"],
    "awslabs-mssql-mcp-server": ["awslabs.mssql-mcp-server"],
    "canvasctrl": ["canvasctrl-vault", "mcp"],
    "cn-stock-mcp": ["cn-stock-mcp", "--stdio"],
    "coordination-memory-mcp": ["comem", "serve"],
    "ctfd-mcp-server": ["ctfd-mcp"],
    "fabric-dw": ["fabric-dw-mcp"],
    "lablink-mcp": ["lablink-mcp"],
    "mastodon-mcp-server": ["mastodon-mcp"],
    "memory-unlocked": ["memory-unlocked-mcp"],
    "memstack-skill-loader": ["python", "-m", "memstack_skill_loader"],
    "monkeybot-browser-mcp": ["browser-mcp"],
    "neuronscope-cli": ["neuronscope-mcp"],
    "ocientmcp": ["ocientmcp-stdio"],
    "pacto": ["pacto-mcp"],
    "perusal": ["perusal", "mcp"],
    "rubric-mcp-server": ["rubric-mcp"],
    "rucio-mcp": ["rucio-mcp", "serve"],
    "taiwan-laboratory-mcp": ["taiwan-lab-mcp"],
    # The twenty-eighth batch (FRESH24), read the same way before any boot.
    "awslabs-finch-mcp-server": ["awslabs.finch-mcp-server"],
    "awslabs-pcap-analyzer-mcp-server": ["awslabs.pcap-analyzer-mcp-server"],
    "bitbucket-mcp-atlassian": ["bitbucket-mcp"],
    "catgirl3d-amocrm-mcp": ["amocrm-mcp"],
    "context-keeper-mcp": ["context-keeper"],
    "crypto-tracker-ai-mcp": ["crypto_tracker_ai_mcp"],
    "db-semantic-mcp": ["pg-semantic-mcp"],
    "erudition-mcp": ["erudition"],
    "hyperliquid-price-mcp": ["--with", "hyperliquid-price-mcp[mcp]==0.1.3", "hyperliquid-price-mcp"],
    "jeles": ["--with", "jeles[mcp]==0.9.0", "jeles-corpus-mcp"],
    "kube-assistant-mcp": ["python", "-m", "kube_assistant_mcp.mcp_server"],
    "kubeopt-mcp": ["python", "-c",
        "import asyncio; from mcp_server.server import server; asyncio.run(server.run_stdio_async())"],
    "mcp-skill-sec": ["python", "-m", "mcp_server"],
    "phpkg": ["phpkg", "serve"],
    "pvlt": ["promptctl", "serve"],
    "pyserial-mcp": ["serial-mcp"],
    "saydo": ["--with", "saydo[mcp]==0.1.1", "saydo-mcp"],
    "sentinel-dv": ["sentinel-dv-server"],
    "seosiri-keyword-cluster-mcp": ["python", "-m", "src.main_server"],
    "tdnet-disclosure-mcp": ["tdnet-disclosure-mcp", "serve"],
    "visual-understanding": ["visual-understanding", "serve"],
    "wiki-search-mcp": ["wiki-search-mcp", "serve"],
    "xdarkzx-fmod-studio-mcp": ["fmod-studio-mcp"],
    # The twenty-ninth batch (FRESH25), read the same way before any boot.
    "ai-data-platform": ["adp", "mcp-server"],
    "ai-journal-mcp": ["--with", "ai-journal-mcp[server]==0.5.0", "ai-journal-mcp", "serve"],
    "bob-ross-landscape": ["bob-ross"],
    "cargoeffe-mcp": ["python", "-m", "cargoeffe_mcp.server"],
    "devmemory-ai": ["devmemory"],
    "erp-report-engine": ["erp-report-engine", "mcp"],
    "fraser-gate": ["fraser-gate-mcp"],
    "highlowticker-algo-mcp": ["hlt-algo-mcp"],
    "hot-memory-mcp": ["memory-mcp"],
    "k8s-mcp-bilbilmyc": ["k8s-mcp"],
    "knktx": ["knktx-mcp"],
    "llmkb": ["--with", "llmkb[mcp]==0.1.0", "llmkb-mcp"],
    "lm-mem": ["lm-mem", "mcp"],
    "meridian-server": ["meridian", "--mcp"],
    "mindsync-mcp": ["mindsync"],
    "nobody-pentest-mcp": ["python", "-m", "nobody_pentest_mcp.server"],
    "okf-ctx": ["okf-serve"],
    "openpod": ["openpod-mcp"],
    "personal-mcp-arun": ["personal-mcp"],
    "rw-ast-tools": ["ast-tools-server"],
    "slepp-ssh-mcp": ["ssh-mcp"],
    "whoop-as": ["whoop-as-server"],
    "yooztech-mcp-omniroute-t2i": ["yooztech_mcp_omniroute_t2i"],
    # The thirtieth batch (FRESH26), read the same way before any boot.
    "ableton-osc-mcp": ["ableton-mcp"],
    "c2pa-watermark-mcp": ["c2pa_watermark_mcp"],
    "color-ai-mcp": ["color_ai_mcp"],
    "csv-analytics-mcp": ["csv_analytics_mcp"],
    "datalox-protein-mcp": ["protein-mcp", "mcp", "--stdio", "--headless"],
    "ecommerce-ai-mcp": ["ecommerce_ai_mcp"],
    "education-ai-mcp": ["education_ai_mcp"],
    "event-planning-ai-mcp": ["event_planning_ai_mcp"],
    "garmin-givemydata": ["garmin-mcp"],
    "ip-network-ai-mcp": ["ip_network_ai_mcp"],
    "job-description-ai-mcp": ["job_description_ai_mcp"],
    "legal-document-ai-mcp": ["legal_document_ai_mcp"],
    "markdown-ai-mcp": ["markdown_ai_mcp"],
    "mcp-agent-gate": ["agent-gate"],
    "mcpaisuite-websearchmcp": ["websearchmcp-server"],
    "mortgage-calculator-ai-mcp": ["mortgage_calculator_ai_mcp"],
    "patient-safety-ai-mcp": ["patient_safety_ai_mcp"],
    "planthire-ai-mcp": ["planthire_ai_mcp"],
    "research-assistant-mcp-mdmehranabul": ["research-assistant-mcp"],
    "robotics-control-mcp": ["robotics_control_mcp"],
    "slack-huddle-mcp": ["slack-huddle-mcp", "serve"],
    "sqlnow-mcp": ["sqlnow-mcp", "--mode", "local"],
    "stock-analyzer-ai-mcp": ["stock_analyzer_ai_mcp"],
    "summarizer-ai-mcp": ["summarizer_ai_mcp"],
    "symtext": ["symtext", "mcp"],
    "traitprint": ["traitprint", "mcp-serve"],
    "unit-converter-ai-mcp": ["unit_converter_ai_mcp"],
    "verifiable-memory-mcp": ["verifiable-memory"],
    "vit-student-mcp": ["vit-mcp-serve"],
    "voice-audio-mcp": ["voice_audio_mcp"],
    "yaml-ai-mcp": ["yaml_ai_mcp"],
    "zotero-research-assistant": ["zra-mcp"],
    # The thirty-first batch (FRESH27), read the same way before any boot.
    "artlounge-reorder-mcp": ["reorder-mcp"],
    "claude-aws-mcp": ["aws-mcp"],
    "claude-repo-mem": ["claude-repo-mem", "serve"],
    "hs-mcp": ["hs-mcp-server"],
    "ladon-nous": ["ladon-nous", "serve"],
    "localbrain-rag": ["localbrain-mcp"],
    "lovranran-mcp-test-runner": ["mcp-test-runner"],
    "mcp-india-retail-intelligence": ["mcp-retail-intel"],
    "meeting-memory": ["meeting-memory-mcp"],
    "orihime": ["orihime", "serve"],
    "sam-gov-mcp-server": ["sam-gov-mcp"],
    "unity-info-mcp": ["unity-info-mcp", "--transport", "stdio"],
    "wildberries-fast-mcp": ["python", "-m", "wbmcp"],
    # The thirty-second batch (FRESH28), read the same way before any boot.
    "arx-mcp-server": ["python", "-c", "import asyncio; from main import main; asyncio.run(main())"],
    "code-editor-mcp": ["code-editor"],
    "codemagicmcp": ["codemagic-mcp"],
    "diffchunk": ["diffchunk-mcp"],
    "dvad-agent-native": ["dvad-agent-mcp"],
    "financekit-mcp": ["financekit"],
    "gotcontext-server": ["token-saver-mcp"],
    "hacker-news-mcp-py": ["hacker-news-mcp"],
    "lighter-mcp": ["lighter-mcp", "stdio"],
    "master-of-hwp-studio": ["mohwp", "mcp-serve"],
    "mcp-jupyter-server": ["jupyter-mcp"],
    "mcp-notebooklm": ["notebooklm-mcp"],
    "mcp-psycopg2": ["python", "-m", "mcp_psycopg2"],
    "notebooklm-mcp-lisa": ["notebooklm-mcp"],
    "notion-full-mcp": ["notion-mcp"],
    "patent-intelligence-mcp-server": ["patent-server"],
    "prowpt-mcp-server": ["prowpt-mcp"],
    "second-brain-mcp": ["second-brain-mcp", "serve"],
    "sqlprism": ["sqlprism", "serve"],
    "tablestore-openmemory-mcp": ["tablestore-openmemory-mcp", "--transport", "stdio"],
    "thermal-mcp-server": ["python", "-m", "thermal_mcp_server"],
    "vaultak-mcp": ["python", "-c", "import asyncio; from server import main; asyncio.run(main())"],
    "vedic-ai-mcp-server": ["python", "-c", "import asyncio; from src.server import main; asyncio.run(main())"],
    "vijil-console-mcp": ["vijil-mcp"],
    # The thirty-third batch (FRESH29), read the same way before any boot.
    "azure-devops-mcp-server": ["azure-devops-mcp"],
    "bioinformatics-mcp-server": ["bioinformatics-server"],
    "btse-mcp": ["btse-mcp", "start"],
    "cerebro-mcp-server": ["cerebro-mcp"],
    "climate-risk-mcp-server": ["climate-risk-server"],
    "codebase-cortex": ["cortex", "mcp", "serve"],
    "crossref-academic-mcp-server": ["crossref-server"],
    "deaddrop-cli": ["deaddrop-mcp"],
    "dep-guard-mcp": ["python", "-m", "dep_guard_mcp.main"],
    "doc-builder-mcp": ["doc-mcp"],
    "doc-parser-mcp": ["python", "-m", "doc_parser_mcp.server"],
    "feedkit": ["--with", "feedkit[mcp]==0.1.1", "feedkit-mcp"],
    "glowroot-mcp-server": ["glowroot-mcp"],
    "iil-outline-mcp": ["python", "-m", "outline_mcp"],
    "mcp-nb": ["mcp-nb", "--stdio"],
    "mcp-tokenwise": ["tokenwise"],
    "meeting-recorder-mcp": ["meeting-recorder"],
    "mineru-mcp-server": ["python", "-c", "from mineru_mcp.server import run_server; run_server('stdio')"],
    "mlflow-mcp-server": ["python", "-c", "from mlflow_mcp_server.server import mcp; mcp.run(transport='stdio')"],
    "nuance-gms-mcp": ["python", "-m", "gms_mcp.server"],
    "openobserve-community-mcp": ["openobserve-mcp"],
    "openwebui-mcp-server": ["openwebui-mcp"],
    "peasy-mcp": ["--with", "peasy-mcp[all]==0.1.3", "python", "-m", "peasy_mcp"],
    "pulse5ctl": ["pulse5-mcp"],
    "rndocs": ["rndocs-mcp"],
    "sanitized-db-mcp": ["python", "-m", "sanitized_db_mcp.server"],
    "sendmail-mcp": ["sendmail-mcp", "stdio"],
    "stigmergent-mcp": ["python", "-m", "server"],
    "terminal-mcp-agent": ["terminal-mcp"],
    "voyageintel": ["voyageintel", "serve", "--stdio"],
    "workos-gmail-mcp-server": ["gmail-mcp-server"],
    # The thirty-fourth batch (FRESH30), read the same way before any boot.
    "chuk-mcp-geocoder-fastmcp": ["chuk-mcp-geocoder", "stdio"],
    "iflow-mcp-adity-star-mcp-yfinance-server": ["mcp-yfinance-server"],
    "iflow-mcp-alexrwilliam-playwright-mcp": ["playwright-mcp", "stdio"],
    "iflow-mcp-alexxx-db-databricks-genie-mcp": ["python", "-m", "server"],
    "iflow-mcp-angrysky56-ollama-mcp-server": ["ollama-mcp"],
    "iflow-mcp-astrabert-tysva": ["iflow-mcp_astrabert-tysva"],
    "iflow-mcp-ayunis-core-legal-mcp": ["legal-mcp"],
    "iflow-mcp-ayunis-legal-mcp": ["legal-mcp"],
    "iflow-mcp-azure-samples-azure-postgresql-mcp": ["python", "-m", "src.azure_postgresql_mcp"],
    "iflow-mcp-badhansen-notion-mcp": ["notion-mcp"],
    "iflow-mcp-blazickjp-shell-mcp-server": ["shell-mcp-server"],
    "iflow-mcp-brightliu-networkx-mcp-server": ["networkx-mcp"],
    "iflow-mcp-cdot65-palo-alto-mcp": ["palo-alto-mcp"],
    "iflow-mcp-colvint-monarch-money-mcp": ["python", "-c",
        "import asyncio; from server import main; asyncio.run(main())"],
    "iflow-mcp-danielmeppiel-oracle-mcp-server": ["python", "-m", "main"],
    "iflow-mcp-effytech-freshservice-mcp": ["iflow-mcp_effytech-freshservice_mcp"],
    "iflow-mcp-fervoyush-plotnine-mcp": ["plotnine-mcp"],
    "iflow-mcp-fr0gger-orkl": ["orkl"],
    "iflow-mcp-galaxyproject-galaxy-mcp": ["galaxy-mcp"],
    "iflow-mcp-gongrzhe-opencv-mcp-server": ["opencv-mcp-server"],
    "iflow-mcp-hasan-syed25-finance": ["iflow-mcp-finance"],
    "iflow-mcp-hathibelagal-dev-mcp-pyautogui": ["mcp-pyautogui"],
    "iflow-mcp-hdcola-mcp-server-oracle": ["iflow-mcp_hdcola-mcp-server-oracle"],
    "iflow-mcp-isdaniel-pgtuner-mcp": ["pgtuner_mcp"],
    "iflow-mcp-jacck-mcp-ortools": ["mcp-ortools"],
    "iflow-mcp-jackkuo666-semanticscholar-mcp-server": ["semanticscholar-mcp-server"],
    "iflow-mcp-jbdamask-cursor-db-mcp": ["cursor-db-mcp-server"],
    "iflow-mcp-jeff-nasseri-mikrotik": ["mcp-server-mikrotik"],
    "iflow-mcp-jenasuraj-mcp": ["mcp-notion-server"],
    "iflow-mcp-kagisearch-kagimcp": ["iflow-mcp_kagisearch-kagimcp"],
    "iflow-mcp-kvncampos-nautobot-mcp": ["nautobot-mcp"],
    "iflow-mcp-lillard01-chatexcel-mcp": ["chatexcel-server"],
    "iflow-mcp-markuspfundstein-mcp-gsuite": ["iflow-mcp_markuspfundstein-mcp-gsuite"],
    "iflow-mcp-maryfellowes-krita-mcp": ["krita-mcp"],
    "iflow-mcp-mytechnotalent-malwarebazaar-mcp": ["malwarebazaar-mcp"],
    "iflow-mcp-niclasolofsson-dbt-core-mcp": ["dbt-core-mcp"],
    "iflow-mcp-nihalxkumar-arch-ops-server": ["arch-ops-server"],
    "iflow-mcp-panther-labs-mcp-panther": ["mcp-panther"],
    "iflow-mcp-peterkrueck-gemini-assistant": ["gemini-mcp"],
    "iflow-mcp-prayanks-mcp-sqlite-server": ["iflow-mcp_prayanks-mcp-sqlite-server"],
    "iflow-mcp-qianjietech-agentskill-mcp": ["iflow-mcp_qianjietech-agentskill-mcp"],
    "iflow-mcp-raghavdasila-django-firebase-mcp": ["django-firebase-mcp"],
    "iflow-mcp-religa-multi-mcp": ["multi-mcp"],
    "iflow-mcp-robcerda-monarch-mcp-server": ["iflow-mcp_robcerda-monarch-mcp-server"],
    "iflow-mcp-rossshannon-weekly-weather-mcp": ["python", "-c",
        "from weather_mcp_server import mcp; mcp.run(transport='stdio')"],
    "iflow-mcp-rsc1102-google-calendar-mcp": ["google-calendar-mcp"],
    "iflow-mcp-rubenszimbres-a2a-adk-mcp": ["a2a-mcp-server"],
    "iflow-mcp-sadiuysal-crawl4ai-mcp-server": ["iflow-mcp_sadiuysal-crawl4ai-mcp-server"],
    "iflow-mcp-saury1120-pdf-reader": ["pdf_reader"],
    "iflow-mcp-scmcphub-scmcp": ["scmcp", "run", "--run-mode", "tool"],
    "iflow-mcp-smadi0x86-gdb-mcp": ["gdb-mcp"],
    "iflow-mcp-switchblxdee-mcp-guide": ["iflow_mcp_switchblxdee_mcp_guide"],
    "iflow-mcp-teabranch-agentic-developer": ["iflow-mcp_teabranch-agentic_developer"],
    "iflow-mcp-the-ai-workshops-searxng-mcp-server": ["searxng-mcp", "--transport", "stdio"],
    "iflow-mcp-torshepherd-compiler-explorer-mcp": ["compiler-explorer-mcp"],
    "iflow-mcp-tuki0918-eagle-mcp-server": ["eagle-mcp-server"],
    "iflow-mcp-webdevtodayjason-a2amcp": ["a2amcp"],
    "iflow-mcp-wehnsdaefflae-terminal-control-mcp": ["iflow-mcp_wehnsdaefflae-terminal-control-mcp"],
    "iflow-mcp-wowyuarm-file-converter-mcp": ["file-converter-mcp"],
    "iflow-mcp-yairwein-mcp-doc-indexer": ["python", "-m", "iflow_mcp_yairwein_mcp_doc_indexer.main"],
    "iflow-mcp-yumeminami-git-mcp-server": ["git-mcp-server"],
    "iflow-mcp-zulelee-stock-images-mcp": ["iflow-mcp_zulelee-stock-images-mcp"],
    "mcjtag": ["python", "-c", "from mcjtag.server import mcp; mcp.run()"],
    "mimer-mcp-server": ["mimer_mcp_server"],
    "nucleotide-archive-mcp": ["nucleotide_archive_mcp"],
    "pingera-mcp-server": ["python", "-m", "pingera_mcp"],
    "refcheck-mcp": ["refcheck"],
    "skill-to-mcp": ["skill_to_mcp"],
    "wems-mcp-server": ["wems"],
    # The thirty-fifth batch (FRESH31), read the same way before any boot.
    "ableton-mcp-server": ["ableton-mcp"],
    "accounting-subject-analysis-mcp-server": ["accounting-analysis-server"],
    "ai-test-assistant-mcp": ["ai-test-assistant"],
    "hn-mcp-server": ["python", "-m", "hn_mcp_server"],
    "ibm-mdm-mcp-server": ["ibm_mdm_mcp_server", "--mode", "stdio"],
    "iflow-mcp-1405942836-appium-mcp-server": ["appium-mcp-server", "run"],
    "iflow-mcp-ahnopologetic-canvas-lms-mcp": ["canvas-lms-mcp"],
    "iflow-mcp-baryhuang-my-apple-remembers": ["mcp_my_apple_remembers"],
    "iflow-mcp-batianvolyc-telegram-mcp-server": ["telegram-mcp-server"],
    "iflow-mcp-boxabirds-yt-gemini-mcp": ["ask-youtube"],
    "iflow-mcp-dropbox-mcp-server-dash": ["mcp-server-dash"],
    "iflow-mcp-gkydev-twitter-mcp-server": ["python", "-c", "import asyncio, server; asyncio.run(server.main())"],
    "iflow-mcp-gomarble-ai-google-analytics-mcp-server": ["google-analytics-mcp"],
    "iflow-mcp-huntsyea-mcp-tasks-organizer": ["tasks-organizer"],
    "iflow-mcp-jonafly-rednotemcp": ["xiaohongshu-mcp"],
    "iflow-mcp-jordyzomer-codeql-mcp": ["codeql-mcp"],
    "iflow-mcp-klavis-ai-youtube": ["iflow-mcp-klavis-ai-youtube", "--transport", "stdio"],
    "iflow-mcp-lightdash-poddubnyoleg": ["lightdash-mcp"],
    "iflow-mcp-lyftium-inc-msfconsole-mcp": ["python", "-m", "mcp_server_stable"],
    "iflow-mcp-minimax-ai-minimax-search": ["minimax-search"],
    "iflow-mcp-nebula-contrib-nebulagraph-mcp-server": ["nebulagraph-mcp-server"],
    "iflow-mcp-normaltusker-kotlin-mcp-server": [
        "python",
        "-c",
        "from mcp_v3.server.mcp_server import KotlinMCPServerV3; KotlinMCPServerV3().mcp.run()",
    ],
    "iflow-mcp-norman-finance-norman-mcp-server": ["norman-mcp", "--transport", "stdio"],
    "iflow-mcp-oraichain-ragflow-mcp": [
        "python",
        "-c",
        "import asyncio, stdio_server; asyncio.run(stdio_server.main())",
    ],
    "iflow-mcp-pradumnasaraf-aviationstack-mcp": ["aviationstack-mcp"],
    "iflow-mcp-r-lz-mcp-video-digest": ["video-digest"],
    "iflow-mcp-sparshdrolia-persistent-code": ["persistent-code", "serve"],
    "iflow-mcp-stephen37-mcp-server-milvus": ["mcp-server-milvus"],
    "iflow-mcp-test111ddff-hash-mobile-mcp-ai": ["mobile-mcp"],
    "iflow-mcp-tonykipkemboi-gmail-imap-mcp": ["gmail-imap-mcp"],
    "iflow-mcp-veenastudio-flstudio": ["flstudio-mcp"],
    "kg-mcp": ["kg-mcp", "--transport", "stdio"],
    "lumino-mcp-server": [
        "python",
        "-c",
        "import os,sys,importlib.util,src; d=os.path.dirname(src.__file__); sys.path.insert(0,d); "
        "s=importlib.util.spec_from_file_location('server_mcp',os.path.join(d,'server-mcp.py')); "
        "m=importlib.util.module_from_spec(s); s.loader.exec_module(m); m.mcp.run()",
    ],
    "m2ai-mcp-loom-advisor": ["loom-advisor"],
    "m2ai-n8n-mcp": ["n8n-mcp"],
    "mcp-arangodb-async": ["mcp-arangodb-async", "server"],
    "mcp-kernel-server": ["mcp-kernel-server", "--stdio"],
    "mcp2anp": ["mcp2anp", "local"],
    "md-book": ["mdbook", "serve-mcp"],
    "oncrawl-mcp-server": ["python", "-m", "oncrawl_mcp_server.server"],
    "rxresume-mcp": ["rxresume-mcp", "--mcp-transport", "stdio"],
    "thinkpdf": ["thinkpdf-mcp"],
    "time-server-mcp-yolan11": ["python", "-c", "from time_server.main import mcp; mcp.run()"],
    "vinehoo-vector-products-search-mcp": ["vinehoo-search"],
}


def file_name(package: str, version: str) -> str:
    return f"{package.replace('/', '__')}@{version}.json"


def declaration(server: Server) -> dict[str, Any]:
    ecosystem, package, version, args, env = server
    if ecosystem == "npm":
        command, argv = "npx", ["-y", f"{package}@{version}", *args]
    else:
        script = PYPI_COMMAND.get(package, [package])
        sdk = ["--with", "mcp<2"] if package in NEEDS_MCP_1 else []
        command, argv = "uvx", [*sdk, "--from", f"{package}=={version}", *script, *args]
    return {"command": command, "args": argv, "env": DUMMY_ENV | env}


def lock_one(server: Server) -> tuple[dict[str, Any] | None, str]:
    """Pin one server in a scratch repository; (its lock entry, "") or (None, why it failed)."""
    repo = Path(tempfile.mkdtemp(prefix="mcp-lock-bench-"))
    try:
        (repo / ".mcp.json").write_text(json.dumps({"mcpServers": {"bench": declaration(server)}}, indent=2))
        (repo / "mcp-lock.yaml").write_text(f"timeout: {boot_timeout}\n")
        try:
            proc = subprocess.run(
                ["mcp-lock", "lock", "--repo", str(repo)],
                capture_output=True, text=True, timeout=boot_timeout + 120,
            )
        except subprocess.TimeoutExpired:
            return None, "mcp-lock lock did not finish"
        lock = repo / "mcp-lock.json"
        entry = json.loads(lock.read_text())["servers"].get("bench") if lock.exists() else None
        if not entry or not any(entry.get(kind) for kind in KINDS):
            return None, _why(proc.stdout + proc.stderr) or f"exit {proc.returncode}, nothing pinned"
        return entry, ""
    finally:
        shutil.rmtree(repo, ignore_errors=True)


def _why(output: str) -> str:
    """The boot failure line and the server's last stderr line, from mcp-lock's output."""
    lines = [line.strip() for line in output.splitlines()]
    failed = next((line for line in lines if "✗" in line or "nothing listed" in line), "")
    stderr = [line.removeprefix("stderr:").strip() for line in lines if line.startswith("stderr:")]
    return " / ".join(part for part in (failed, stderr[-1] if stderr else "") if part)[:400]


def definitions_sha256(doc: dict[str, Any]) -> str:
    """SHA-256 of the canonical JSON of the dumped definitions (the four kinds): what a dump's checksum is of."""
    canonical = json.dumps({kind: doc[kind] for kind in KINDS}, ensure_ascii=False, sort_keys=True,
                           separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def record(server: Server, entry: dict[str, Any]) -> dict[str, Any]:
    ecosystem, package, version, args, _env = server
    doc = {
        "package": package,
        "version": version,
        "ecosystem": ecosystem,
        "arguments": args,
        "dumped": datetime.date.today().isoformat(),
        "serverInfo": entry.get("serverInfo"),
        "instructions": entry.get("instructions"),
        **{kind: [pin["definition"] for pin in (entry.get(kind) or {}).values()] for kind in KINDS},
    }
    return doc | {"definitions_sha256": definitions_sha256(doc)}


def dump(server: Server, out: Path, until: datetime.datetime | None = None) -> tuple[Server, str | None]:
    """(server, "") when dumped, (server, why) when it failed, (server, None) when not started before `until`."""
    if until is not None and datetime.datetime.now(datetime.UTC) >= until:
        return server, None
    entry, why = lock_one(server)
    if entry is None:
        print(f"FAIL {server[1]}@{server[2]}: {why}", file=sys.stderr, flush=True)
        return server, why
    doc = record(server, entry)
    path = out / file_name(server[1], server[2])
    path.write_text(json.dumps(doc, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"ok   {server[1]}@{server[2]}: {len(doc['tools'])} tools", file=sys.stderr, flush=True)
    return server, ""


def write_sources(failures: dict[str, str], out: Path, servers: list[Server]) -> None:
    rows, total = [], 0
    for path in sorted(out.glob("*.json")):
        if path.name == "failures.json":
            continue
        doc = json.loads(path.read_text(encoding="utf-8"))
        counts = [len(doc[kind]) for kind in KINDS]
        total += counts[0]
        rows.append(f"| {doc['ecosystem']} | `{doc['package']}` | {doc['version']} | "
                    + " | ".join(map(str, counts)) + f" | {doc['dumped']} |")
    lines = [
        "# Benign corpus: sources",
        "",
        "Generated by `dump_benign.py` (do not edit by hand). Definitions exactly as `mcp-lock lock` pinned them,",
        "booted with placeholder credentials.",
        "",
        f"{len(rows)} servers, {total} tools.",
        "",
        "| ecosystem | package | version | tools | prompts | resources | templates | dumped |",
        "|---|---|---|---|---|---|---|---|",
        *rows,
        "",
        f"## Did not boot (not in the corpus): {len(failures)} of {len(servers)} tried",
        "",
        *(f"- `{name}`: {why}" for name, why in sorted(failures.items())),
        "",
    ]
    untried = [f"{s[1]}@{s[2]}" for s in servers
               if f"{s[1]}@{s[2]}" not in failures and not (out / file_name(s[1], s[2])).exists()]
    if untried:
        lines += ["## Not dumped yet", "", *(f"- `{name}`" for name in untried), ""]
    (out / "SOURCES.md").write_text("\n".join(lines), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=3)
    parser.add_argument("--only", nargs="*", default=None, help="packages to dump (default: all)")
    parser.add_argument("--missing", action="store_true", help="only servers without a dump yet")
    batch_options = parser.add_mutually_exclusive_group()
    for batch in BATCHES:
        batch_options.add_argument(f"--{batch}", dest="batch", action="store_const", const=batch,
                                   help=f"dump servers.{batch.upper()} into data/benign_{batch}")
    parser.add_argument("--until", default=None, help="HH:MM UTC: start no boot after this time")
    parser.add_argument("--timeout", type=int, default=BOOT_TIMEOUT, help="seconds per server boot")
    opts = parser.parse_args()
    global boot_timeout
    boot_timeout = opts.timeout
    servers, out = (BATCHES[opts.batch], HERE / "data" / f"benign_{opts.batch}") if opts.batch else (SERVERS, OUT)
    out.mkdir(parents=True, exist_ok=True)
    chosen = [s for s in servers if opts.only is None or s[1] in opts.only]
    if opts.missing:
        chosen = [s for s in chosen if not (out / file_name(s[1], s[2])).exists()]
    until = None
    if opts.until:
        hour, minute = map(int, opts.until.split(":"))
        until = datetime.datetime.now(datetime.UTC).replace(hour=hour, minute=minute, second=0, microsecond=0)
    with ThreadPoolExecutor(max_workers=opts.jobs) as pool:
        results = list(pool.map(lambda server: dump(server, out, until), chosen))
    # Read only now: another run may have recorded its own servers meanwhile.
    failures_file = out / "failures.json"
    failures: dict[str, str] = json.loads(failures_file.read_text()) if failures_file.exists() else {}
    for server, why in results:
        name = f"{server[1]}@{server[2]}"
        if why is None:
            continue
        if why:
            failures[name] = why
        else:
            failures.pop(name, None)
    current = {f"{s[1]}@{s[2]}" for s in servers}
    failures = {name: why for name, why in failures.items() if name in current}
    failures_file.write_text(json.dumps(failures, indent=1, sort_keys=True) + "\n")
    write_sources(failures, out, servers)


if __name__ == "__main__":
    main()
