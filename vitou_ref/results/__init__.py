"""Results: the reports of certification runs read, checked, compared, diffed, badged and shown as a page."""
