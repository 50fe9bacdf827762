# Debian packages of kvbench, built by CPack from the install rules of the top-level
# CMakeLists.txt (deploy/package.sh runs it; docs/packages.md says what each package holds).
# One install component per package:
#   kvbench-agent       agent       kv-agent, its unit, /etc/kvbench/agent.json
#   kvbench-controller  controller  kv-controller, its unit, /etc/kvbench/controller.json
#   kvbench-cli         cli         kvctl, kv-runner, /usr/share/kvbench (profiles, datasets, examples)
#   kvbench-sim         sim         kvsim-vllm, kvsim-lmcache
# /usr/share/kvbench has one owner, kvbench-cli: kvctl run reads the profiles and the demo's
# dataset, and so does the agent, which also starts kv-runner for every scenario; so the agent
# depends on kvbench-cli (kv-runner and the shared files), and no fifth package is needed.
# What only a package carries (conffiles, copyright, changelog, lintian overrides) is
# EXCLUDE_FROM_ALL: `cmake --install` without a component (e2e.installed_tree) leaves it out.

set(KV_DEB_MAINTAINER "kvbench maintainers <kvbench@example.org>" CACHE STRING
  "Maintainer field of the Debian packages")
set(KV_DEB_HOMEPAGE "" CACHE STRING "Homepage field of the Debian packages (none when empty)")
# The Debian revision: the packaging's own version, 1 for each new upstream version.
set(KV_DEB_RELEASE 1)
set(kv_deb_version "${PROJECT_VERSION}-${KV_DEB_RELEASE}")
set(kv_deb_dir "${PROJECT_SOURCE_DIR}/deploy/debian")
set(kv_deb_out "${CMAKE_BINARY_DIR}/debian")

# The changelog's newest entry must be this version (a version bump gets its entry).
file(STRINGS "${kv_deb_dir}/changelog" kv_changelog_head LIMIT_COUNT 1)
if(NOT kv_changelog_head MATCHES "^kvbench \\(${kv_deb_version}\\) ")
  message(FATAL_ERROR "deploy/debian/changelog's first entry is not kvbench (${kv_deb_version}): "
    "add an entry for project(VERSION ${PROJECT_VERSION}) (revision ${KV_DEB_RELEASE})")
endif()
file(MAKE_DIRECTORY "${kv_deb_out}")
# gzip -9n: no name or time stamp in the header (lintian: changelog-file-not-compressed, and a
# package that builds the same twice).
execute_process(COMMAND gzip -9nc INPUT_FILE "${kv_deb_dir}/changelog"
  OUTPUT_FILE "${kv_deb_out}/changelog.Debian.gz" RESULT_VARIABLE kv_gzip_result)
if(NOT kv_gzip_result EQUAL 0)
  message(FATAL_ERROR "gzip of deploy/debian/changelog failed: ${kv_gzip_result}")
endif()

# kv_deb_package(COMPONENT PACKAGE SECTION SUMMARY DESCRIPTION): the package's copyright,
# changelog and lintian overrides (deploy/debian/PACKAGE.lintian-overrides when there is one),
# and its CPack fields.
function(kv_deb_package component package section summary description)
  string(TOUPPER "${component}" up)
  install(FILES "${kv_deb_dir}/copyright" "${kv_deb_out}/changelog.Debian.gz"
    DESTINATION share/doc/${package} COMPONENT ${component} EXCLUDE_FROM_ALL)
  if(EXISTS "${kv_deb_dir}/${package}.lintian-overrides")
    install(FILES "${kv_deb_dir}/${package}.lintian-overrides" DESTINATION share/lintian/overrides
      RENAME ${package} COMPONENT ${component} EXCLUDE_FROM_ALL)
  endif()
  set(CPACK_DEBIAN_${up}_PACKAGE_NAME "${package}" PARENT_SCOPE)
  set(CPACK_DEBIAN_${up}_PACKAGE_SECTION "${section}" PARENT_SCOPE)
  set(CPACK_DEBIAN_${up}_DESCRIPTION "${summary}\n${description}" PARENT_SCOPE)
endfunction()

# kv_deb_daemon(COMPONENT PACKAGE UNIT OTHER_PACKAGE STATE_DIRS): a daemon's conffile
# /etc/kvbench/COMPONENT.json and its maintainer scripts (deploy/debian/*.in: the kvbench user,
# /var/lib/kvbench, the unit enabled and started; on purge STATE_DIRS go, and the user once
# OTHER_PACKAGE, the other daemon, is gone too).
function(kv_deb_daemon component package unit other_package state_dirs)
  string(TOUPPER "${component}" up)
  install(FILES "${kv_deb_dir}/${component}.json" DESTINATION /etc/kvbench
    COMPONENT ${component} EXCLUDE_FROM_ALL)
  set(KV_PACKAGE "${package}")
  set(KV_UNIT "${unit}")
  set(KV_OTHER_PACKAGE "${other_package}")
  set(KV_STATE_DIRS "${state_dirs}")
  set(scripts "")
  foreach(script postinst prerm postrm)
    configure_file("${kv_deb_dir}/${script}.in" "${kv_deb_out}/${package}/${script}" @ONLY)
    list(APPEND scripts "${kv_deb_out}/${package}/${script}")
  endforeach()
  file(WRITE "${kv_deb_out}/${package}/conffiles" "/etc/kvbench/${component}.json\n")
  set(CPACK_DEBIAN_${up}_PACKAGE_CONTROL_EXTRA "${scripts};${kv_deb_out}/${package}/conffiles"
    PARENT_SCOPE)
  set(CPACK_DEBIAN_${up}_PACKAGE_CONTROL_STRICT_PERMISSION ON PARENT_SCOPE)
endfunction()

kv_deb_package(agent kvbench-agent admin
  "kvbench agent: runs KV-cache offload benchmark scenarios on a node"
  "kv-agent is the per-node daemon of kvbench. It connects to a kvbench
controller, receives scenarios (a KV-cache tier, a concurrency), starts
the inference engine replicas, the LMCache cache server and Caddy, replays
recorded conversations with kv-runner, samples metrics and streams the
results back.

The systemd unit kv-agent.service runs it as the system user kvbench with
its work folder in /var/lib/kvbench; its configuration is
/etc/kvbench/agent.json.")
kv_deb_daemon(agent kvbench-agent kv-agent kvbench-controller
  "/var/lib/kvbench/agent /var/lib/kvbench/datasets /var/lib/kvbench/nvme-cache")

kv_deb_package(controller kvbench-controller admin
  "kvbench controller: schedules KV-cache benchmark jobs across agents"
  "kv-controller is the control plane of kvbench. It accepts job specs over
gRPC, expands them into scenarios, places them on connected agents, stores
events and results (SQLite or PostgreSQL), runs schedules and judges
regressions.

The systemd unit kv-controller.service runs it as the system user kvbench
with its data in /var/lib/kvbench; its configuration is
/etc/kvbench/controller.json.")
kv_deb_daemon(controller kvbench-controller kv-controller kvbench-agent
  "/var/lib/kvbench/controller")

kv_deb_package(cli kvbench-cli utils
  "kvbench command-line tools: kvctl and kv-runner"
  "kvctl is the operator's client of a kvbench controller (submit, watch,
results, diff, reports, schedules) and runs a whole job on this machine
with kvctl run. kv-runner replays recorded multi-turn conversations
against an OpenAI-compatible server.

The engine profiles, the demo's dataset and the demo job spec are in
/usr/share/kvbench (kvctl run /usr/share/kvbench/examples/demo-sim.json).")

kv_deb_package(sim kvbench-sim utils
  "kvbench simulators of vLLM and LMCache"
  "kvsim-vllm imitates a vLLM OpenAI server (paged KV cache with prefix
caching, a latency model, vLLM's metrics) and kvsim-lmcache an LMCache
cache server, so that kvbench's jobs run without GPUs (the engine sim of a
job spec).")

# Dependencies: the shared libraries' packages from dpkg-shlibdeps, and what each program runs.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_AGENT_PACKAGE_DEPENDS "adduser, kvbench-cli (= ${kv_deb_version})")
set(CPACK_DEBIAN_AGENT_PACKAGE_RECOMMENDS "caddy")
set(CPACK_DEBIAN_AGENT_PACKAGE_SUGGESTS "kvbench-sim")
set(CPACK_DEBIAN_CONTROLLER_PACKAGE_DEPENDS "adduser")
# kvctl run of a simulated job (the demo) starts the simulators and, for 2+ replicas, Caddy;
# kvctl against a controller needs neither.
set(CPACK_DEBIAN_CLI_PACKAGE_RECOMMENDS "kvbench-sim (= ${kv_deb_version}), caddy")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME kvbench)
set(CPACK_PACKAGE_VENDOR kvbench)
set(CPACK_PACKAGE_CONTACT "${KV_DEB_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${KV_DEB_MAINTAINER}")
if(KV_DEB_HOMEPAGE)
  set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "${KV_DEB_HOMEPAGE}")
endif()
set(CPACK_DEBIAN_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_DEBIAN_PACKAGE_RELEASE "${KV_DEB_RELEASE}")
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL agent controller cli sim)
# The programs stripped (their line tables are for backtraces of a development build).
set(CPACK_STRIP_FILES ON)
# Installed with DESTDIR and the real prefix, so the units name /usr/bin, not the staging folder.
set(CPACK_SET_DESTDIR ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_INSTALL_PREFIX /usr)
set(CPACK_PACKAGE_DIRECTORY "${CMAKE_BINARY_DIR}/packages")
include(CPack)
