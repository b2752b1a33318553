"""I/O profiles of applications (issue 16): what one application does to storage alone
and with copies of itself, measured by the runner and kept as a versioned JSON file
(`schema`), distilled from a results folder (`distill`), for a spec that runs one
application at several container counts (`application`)."""
