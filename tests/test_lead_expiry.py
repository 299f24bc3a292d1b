"""One leading teacher tab in the store (SQLite and PostgreSQL, a clock moved by hand): the leader's
heartbeat keeps the lead, a tab writes only while it leads, and a tab takes the lead of a silent one."""

from __future__ import annotations

import test_store

from tinygpt.classroom.period import (
    LEAD_EXPIRES_S,
    LEADS,
    OTHER,
    TOOK,
    ClassState,
    hold_lead,
    read_state,
    write_led_state,
)

# the fixtures of test_store: a fresh store on SQLite and on PostgreSQL, and a clock moved by hand
store_url, clock, store = test_store.store_url, test_store.clock, test_store.store


def test_the_leaders_heartbeat_keeps_the_lead_and_a_silent_leader_loses_it(store, clock):
    code, key = store.create_class("lesson=1&pages=attention")
    led = write_led_state(store, code, key, ClassState(follow=True).with_view("attention", "step=scores"), "A")
    assert led is not None and read_state(store, code).leader == "A"

    clock.now += LEAD_EXPIRES_S - 2
    assert hold_lead(store, code, key, "B") == OTHER  # A is alive: B waits and writes nothing
    assert write_led_state(store, code, key, ClassState(), "B") is None
    assert hold_lead(store, code, key, "A") == LEADS  # A's heartbeat
    clock.now += LEAD_EXPIRES_S - 2  # longer than the expiry since A wrote, shorter since its heartbeat
    assert hold_lead(store, code, key, "B") == OTHER
    assert write_led_state(store, code, key, ClassState(), "B") is None
    assert read_state(store, code) == led  # nothing B did was kept

    clock.now += 3  # A silent for longer than the expiry (its page was reloaded or closed)
    assert hold_lead(store, code, key, "B") == TOOK
    taken = read_state(store, code)
    assert taken.leader == "B" and taken.version == led.version + 1
    assert taken.views == led.views and taken.follow  # the lead changes hands on the view students see
    assert hold_lead(store, code, key, "C") == OTHER  # B is alive now: a third tab does not take it too
    assert write_led_state(store, code, key, ClassState(follow=False), "A") is None  # A no longer writes
    assert hold_lead(store, code, key, "A") == OTHER
    assert read_state(store, code) == taken


def test_taking_the_lead_by_hand_works_while_the_leader_is_alive(store, clock):
    code, key = store.create_class("lesson=1&pages=attention")
    assert hold_lead(store, code, key, "A") == LEADS  # before any state: none leads, nothing written
    assert read_state(store, code) is None
    write_led_state(store, code, key, ClassState(), "A")
    clock.now += 1
    assert write_led_state(store, code, key, ClassState(follow=True), "B") is None
    taken = write_led_state(store, code, key, ClassState(follow=True), "B", take=True)
    assert taken is not None and read_state(store, code) == taken and taken.leader == "B" and taken.follow


def test_the_tab_the_teacher_used_last_takes_the_lead_of_a_silent_leader_first(store, clock):
    """Tab A leads and tab B waits; A's page is reloaded (a new tab C, whose page runs while A's heartbeat
    is still fresh): once A is silent, C takes the lead, not B; B takes it only after twice the expiry
    (C may have been closed too)."""
    code, key = store.create_class("lesson=1&pages=attention")
    write_led_state(store, code, key, ClassState(follow=True), "A")
    assert hold_lead(store, code, key, "B", used=True) == OTHER  # B's page opens while A leads
    assert read_state(store, code).successor == "B"
    clock.now += 2
    assert hold_lead(store, code, key, "C", used=True) == OTHER  # A reloaded: C is the tab used last
    assert read_state(store, code).successor == "C" and read_state(store, code).leader == "A"
    before = read_state(store, code)
    assert hold_lead(store, code, key, "B") == OTHER  # B's timer alone names no successor
    assert read_state(store, code) == before

    clock.now += LEAD_EXPIRES_S + 1  # A silent (its page is gone)
    assert hold_lead(store, code, key, "B") == OTHER  # B's timer runs first: C goes first
    assert write_led_state(store, code, key, ClassState(), "B") is None
    assert hold_lead(store, code, key, "C") == TOOK
    taken = read_state(store, code)
    assert taken.leader == "C" and taken.successor == "" and taken.follow


def test_any_waiting_tab_takes_the_lead_once_leader_and_successor_are_both_gone(store, clock):
    code, key = store.create_class("lesson=1&pages=attention")
    write_led_state(store, code, key, ClassState(), "A")
    hold_lead(store, code, key, "B", used=True)
    hold_lead(store, code, key, "C", used=True)  # C is named, then closed too
    clock.now += LEAD_EXPIRES_S + 1
    assert hold_lead(store, code, key, "B") == OTHER
    clock.now += LEAD_EXPIRES_S
    assert hold_lead(store, code, key, "B") == TOOK
    assert read_state(store, code).leader == "B"
