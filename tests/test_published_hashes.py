"""Every ruleset and profile published is pinned to its content hash: adding a game to the family changes none."""

from __future__ import annotations

import pytest

from vitou_ref import load_ruleset

# As `vitou rulesets` printed them before Truco Paulista was added (and as records and reports cite them). A new
# ruleset is added below once published; a line here never changes.
PUBLISHED = {
    "le-truc/1.0.0": "sha256:3c5b014ae5b1ee84c76433d7272f8ec2b3aa768a81467945dc02e94f70981820",
    "le-truc/1.1.0": "sha256:7eac2e890c46c76fce830fe64227cdc871229d86f055244408d6bea3a047d688",
    "truco-paulista/1.0.0": "sha256:ba97a5d5e13d278aabe2a23327838711ebc12b8b4160c7f84cc56016bb9c64ac",
    "vitou/1.0.0": "sha256:a0f07c6456ea8c1337bcf0e73c2e1242e6f0cd56a022cabd4663c11caf6ea1a0",
    "vitou/1.1.0": "sha256:2b6d0ab268e9a4b8fb739afa7de8ac63909a23f7e5af599df403e959da7ad9fd",
    "vitou-2p/1.0.0": "sha256:acff5dd3ecc65ea3352ba81340d1dc503591ce4850e7eb6fb23a5aa6dd6fb333",
    "vitou-anticlockwise/1.0.0": "sha256:c612c298b5d6795282ecf80804330389a2da0b10a89e6f321a7c7829b449a2ce",
    "vitou-last-bids/1.0.0": "sha256:6ca8876fcf2010c86695418c581b946e598833eb3dea02de6deb9d4dac1c62a8",
    "vitou-mid-trick/1.0.0": "sha256:0fd995ccf97365c5404d52bd9b08e287816c561bfb67ab8d41f83c2619200657",
    "vitou-partners-tie/1.0.0": "sha256:c5693e53727874280e5201086b834250b89d2f6dc506b7c4616d5f21977d02ca",
    "vitou-volee/1.0.0": "sha256:005916bcaf3d11002fa0257458844b0378a51e23bd55ed543167d2008142c943",
}


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_a_published_ruleset_keeps_its_hash(name: str) -> None:
    assert load_ruleset(name).content_hash == PUBLISHED[name]
