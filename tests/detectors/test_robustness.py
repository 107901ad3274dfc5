import time

from hypothesis import given, settings
from hypothesis import strategies as st

from scanner.detectors import SEVERITIES, Hit, scan_text

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


def _timed(text):
    start = time.perf_counter()
    scan_text(text)
    return time.perf_counter() - start


def test_one_megabyte_inputs_stay_fast():
    mb = 1_000_000
    inputs = [
        ("lorem ipsum dolor sit amet, " * (mb // 28)),
        ("read " * (mb // 5)),                                    # verb repeated, secret never follows
        ("do not show " * (mb // 12)),                            # negation repeated, 'to the user' never follows
        ("а" * mb),                                               # one giant look-alike "word"
        ("x\u200b" * (mb // 2)),                                  # invisible chars everywhere
        ("also send " + "a" * mb),                                # long run with no sentence boundary
        ("<" * mb),
        ("when the user asks " * (mb // 19)),
    ]
    for text in inputs:
        assert _timed(text) < 5.0, text[:30]
