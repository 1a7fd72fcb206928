"""Presentation of model results: text reports (:mod:`kerncraft.report.text`),
JSON documents (:mod:`kerncraft.report.json`) and their schema
(:mod:`kerncraft.report.schema`, documented in ``docs/json.md``).

The models compute typed results (:mod:`kerncraft.models.results`); nothing
here computes a prediction.
"""
