"""``okfpro serve`` and ``okfpro render``'s page: the bundle, the board and your memory in a browser.

``markdown`` (concept text to safe HTML, links into the bundle rewritten), ``pages`` (the views as
HTML, pure: data in, text out), ``site`` (one bundle served: its kept parse, the JSON of every view
in the CLI's shapes, the memory of the server's own identity), ``http`` (the HTTP door: methods,
Host, headers, the hub of several bundles), ``export`` (the same pages as one self-contained file
for ``okfpro render``).  The design note is .okf/design/serve.md.
"""
