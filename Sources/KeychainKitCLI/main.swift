// SPDX-License-Identifier: MIT
// keychainkit — the command-line tool: see Tool.swift and `keychainkit --help`.
runTool()
