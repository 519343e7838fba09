"""Example agents written as a user would write them, entered through plugin specs (:mod:`carioca_agents.plugins`)."""
