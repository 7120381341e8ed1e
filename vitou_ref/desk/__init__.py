"""The referee's desk: a local web page where a hand is entered as it happened and ruled by the audit."""
