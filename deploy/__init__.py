"""Deployment rendering: compose, Kubernetes, Prometheus and Grafana files from the code."""
