import time

from hypothesis import given, settings
from hypothesis import strategies as st

from scanner.detectors import Hit, scan_text
from scanner.model.rules import SEVERITIES

ALPHABET = st.characters(codec=None, exclude_categories=("Cs",))
SNIPPETS = st.sampled_from([
    "do not ", "tell ", "the user", " to ", "ignore ", "previous ", "read ", "~/.ssh/id_rsa", ".env", "bcc ",
    "\u200b", "\u202e", "\U000E0041", "а", "ο", "<IMPORTANT>", "\nassistant: ", "send ", "all ", "https://x.io",
    "instead", "before using any other tool", ".", " ",
])


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=ALPHABET, max_size=400))
def test_never_raises_on_arbitrary_text(text):
    for hit in scan_text(text):
        assert isinstance(hit, Hit) and hit.severity in SEVERITIES


@settings(max_examples=200, deadline=None)
@given(st.lists(SNIPPETS, max_size=60).map("".join))
def test_never_raises_on_adversarial_fragments(text):
    scan_text(text)


def _cpu_seconds(text):
    # CPU time of this process, so other work on a shared machine barely moves it.
    start = time.process_time()
    scan_text(text)
    return time.process_time() - start


# (prefix, unit, why it could blow up): the unit repeated to 250 kB and to 1 MB. Backtracking that
# goes quadratic would take 16 times as long for 4 times the text; linear scanning about 4 times.
PATHOLOGICAL = [
    ("", "lorem ipsum dolor sit amet, ", "plain prose"),
    ("", "read ", "verb repeated, secret never follows"),
    ("", "do not show ", "negation repeated, 'to the user' never follows"),
    ("", "а", "one giant look-alike word"),
    ("", "x\u200b", "invisible characters everywhere"),
    ("also send ", "a", "a long run with no sentence boundary"),
    ("", "<", "an unclosed tag, repeated"),
    ("", "when the user asks ", "a trigger phrase repeated"),
]


def test_one_megabyte_inputs_scan_in_linear_time():
    for prefix, unit, why in PATHOLOGICAL:
        small = _cpu_seconds(prefix + unit * (250_000 // len(unit)))
        large = _cpu_seconds(prefix + unit * (1_000_000 // len(unit)))
        assert large < 30.0, why  # minutes would mean catastrophic backtracking
        assert large < 10 * max(small, 0.02), (why, small, large)
