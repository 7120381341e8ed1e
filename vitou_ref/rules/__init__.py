"""The rules as data: the model, YAML loading and schemas, profiles, the registry of rulesets, diffs."""
