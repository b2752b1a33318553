"""Reports: charts (`figures`, drawn in `chart_style`) for the HTML report of an experiment."""
