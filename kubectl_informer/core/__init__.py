"""The contract every layer speaks: the trace and its kinds, run info, profiles,
durations, predicates, API errors, selector grammar. Imports nothing of ours but clock."""
