"""The plugins shipped with Serpent, one folder each (`plugin.toml` beside its module).

Discovered like any other plugin and run in their own plugin host process, never in the
main process; off until the person turns them on in Settings → Plugins.
"""
