"""The conformance kit: the suite's cases, comparison, certification and its reports."""
