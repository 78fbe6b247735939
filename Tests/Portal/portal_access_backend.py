#!/usr/bin/python3
"""A test Access backend for xdg-desktop-portal (org.freedesktop.impl.portal.Access), standing in
for the desktop's permission dialog: each AccessDialog is answered with the number in the file
argv[1] (0 grant, 1 deny; read at each call, so a test can change it) and noted as one line in
the file argv[2]. Owns org.freedesktop.impl.portal.desktop.capturekit on the session bus."""
import sys

from gi.repository import Gio, GLib

INTERFACE = """<node><interface name="org.freedesktop.impl.portal.Access">
<method name="AccessDialog">
<arg type="o" name="handle" direction="in"/><arg type="s" name="app_id" direction="in"/>
<arg type="s" name="parent_window" direction="in"/><arg type="s" name="title" direction="in"/>
<arg type="s" name="subtitle" direction="in"/><arg type="s" name="body" direction="in"/>
<arg type="a{sv}" name="options" direction="in"/>
<arg type="u" name="response" direction="out"/><arg type="a{sv}" name="results" direction="out"/>
</method></interface></node>"""

answer_file, prompts_file = sys.argv[1], sys.argv[2]


def on_call(connection, sender, path, interface, method, parameters, invocation):
    with open(answer_file) as f:
        response = int(f.read().strip() or "0")
    with open(prompts_file, "a") as f:
        f.write(f"app={parameters[1]!r} title={parameters[3]!r} response={response}\n")
    invocation.return_value(GLib.Variant("(ua{sv})", (response, {})))


def on_bus(connection, name):
    info = Gio.DBusNodeInfo.new_for_xml(INTERFACE).interfaces[0]
    connection.register_object("/org/freedesktop/portal/desktop", info, on_call, None, None)


Gio.bus_own_name(Gio.BusType.SESSION, "org.freedesktop.impl.portal.desktop.capturekit",
                 Gio.BusNameOwnerFlags.NONE, on_bus, None, lambda *args: sys.exit(1))
GLib.MainLoop().run()
