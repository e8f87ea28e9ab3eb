"""User errors of the filters layer: `citeloop score` and `citeloop filter` exit 2 on these."""

from __future__ import annotations


class FilterError(ValueError):
    """A user error of `citeloop score` / `citeloop filter` (exit code 2)."""


class FilterConfigError(FilterError):
    """A filter config file or value is wrong; the message says where and what."""


class NoRunsError(FilterError):
    """The paths given hold no run files."""


class UnknownNameError(FilterError):
    """A judge or scorer name that is neither registered nor a loadable `module:attr`."""
