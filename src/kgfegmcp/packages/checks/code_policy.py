"""Statement codes: present, absent, shaped and unique as the profile's code policy says."""

from __future__ import annotations

import re

from kgfegmcp.core.finding_codes import FindingCode
from kgfegmcp.packages.checks.base import PackageCheck


class CodePolicyCheck(PackageCheck):
    """Exact and prefix code search answer from these codes, so they must be what the profile promises."""

    codes = (FindingCode.CODE_POLICY_VIOLATION,)

    def run(self) -> None:
        if self.profile is None:
            return
        policy = self.profile.code_policy
        pattern = re.compile(policy.pattern) if policy.pattern else None
        seen: dict[str, str] = {}
        for item in self.content.items:
            code = item.statement_code
            rule = self.profile.statement_type(item.statement_type)
            if code is None:
                if policy.codes_present == "allStandards" and rule is not None and rule.role == "standard":
                    self.out.add(
                        FindingCode.CODE_POLICY_VIOLATION,
                        "the profile requires a code on every standard",
                        artifact="nodes",
                        location=item.identifier,
                    )
                continue
            if policy.codes_present == "none":
                self.out.add(
                    FindingCode.CODE_POLICY_VIOLATION,
                    "the profile declares that items carry no codes",
                    artifact="nodes",
                    location=item.identifier,
                )
                continue
            if pattern is not None and pattern.fullmatch(code) is None:
                self.out.add(
                    FindingCode.CODE_POLICY_VIOLATION,
                    f"code {code!r} does not match the profile's pattern",
                    artifact="nodes",
                    location=item.identifier,
                )
            key = code.casefold() if policy.normalization == "casefold" else code
            if policy.unique and key in seen:
                self.out.add(
                    FindingCode.CODE_POLICY_VIOLATION,
                    f"code {code!r} repeats but the profile says codes are unique",
                    artifact="nodes",
                    location=item.identifier,
                )
            seen.setdefault(key, item.identifier)
