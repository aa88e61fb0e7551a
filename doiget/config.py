"""Where the store lives and what this process may do (capability profile)."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from doiget.errors import DoigetError, ErrorCode

PROFILES = ("full", "offline", "read-only")
# The keys config.toml may hold; any other is an error naming it. Keys other than profile and
# contact_email are passed on in Config.extra (query_time_limit: store/deadline.py).
KEYS = ("profile", "contact_email", "query_time_limit")


def resolve_home(home: str | os.PathLike[str] | None = None) -> Path:
    """The store directory: ``home`` if given, else ``$DOIGET_HOME``, else the platform data dir."""
    if home:
        return Path(home).expanduser()
    env = os.environ.get("DOIGET_HOME")
    if env:
        return Path(env).expanduser()
    import platformdirs  # on use, as tomllib below: start-up (`doiget serve` with $DOIGET_HOME needs neither)

    return Path(platformdirs.user_data_dir("doiget"))


@dataclass(frozen=True)
class Config:
    """Settings read from ``<home>/config.toml`` overlaid by environment variables.

    ``contact_email`` is sent to Crossref / Unpaywall / OpenAlex as they ask and is a secret
    as far as doiget's outputs go: it never appears in a response, log line or provenance row.
    """

    home: Path
    profile: str = "full"
    contact_email: str | None = None
    extra: dict = field(default_factory=dict)

    @property
    def network_enabled(self) -> bool:
        return self.profile == "full"

    @property
    def write_enabled(self) -> bool:
        return self.profile != "read-only"

    def require(self, capability: str) -> None:
        """Raise CAPABILITY_DENIED unless this profile allows ``network`` or ``write``."""
        allowed = {"network": self.network_enabled, "write": self.write_enabled}[capability]
        if not allowed:
            raise DoigetError(ErrorCode.CAPABILITY_DENIED,
                              f"the '{self.profile}' profile does not allow {capability} access "
                              f"(set DOIGET_PROFILE=full to enable it)")


def load_config(home: str | os.PathLike[str] | None = None) -> Config:
    root = resolve_home(home)
    data: dict = {}
    path = root / "config.toml"
    if path.is_file():
        import tomllib

        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise DoigetError(ErrorCode.STORE_ERROR, f"cannot read {path}: {exc}") from exc
    unknown = sorted(set(data) - set(KEYS))
    if unknown:
        raise DoigetError(ErrorCode.INVALID_INPUT, f"unknown key {unknown[0]!r} in {path}; "
                                                   f"config.toml keys: {', '.join(KEYS)}")
    profile = os.environ.get("DOIGET_PROFILE") or data.get("profile", "full")
    if profile not in PROFILES:
        raise DoigetError(ErrorCode.INVALID_INPUT, f"unknown profile {profile!r}; profiles: {', '.join(PROFILES)}")
    email = os.environ.get("DOIGET_CONTACT_EMAIL") or data.get("contact_email")
    extra = {k: v for k, v in data.items() if k not in ("profile", "contact_email")}
    return Config(home=root, profile=profile, contact_email=email or None, extra=extra)
