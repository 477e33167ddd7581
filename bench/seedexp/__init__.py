"""The seed experiment's parts (bench/seed_experiment.py runs them): the plan, the fake agent
on its PTY, the live observers, the byte detectors, the scoring and the report."""
