'use client';

import { ButtonLink } from '@/components/ui/button-link';
import { useRouter } from 'next/navigation';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type InputHTMLAttributes } from 'react';
import { Controller, useForm, useWatch, type Control, type UseFormRegisterReturn } from 'react-hook-form';
import { actionData } from '@/lib/action-result';
import { ApiError } from '@/lib/api-client';
import { LIMITS } from '@/lib/limits';
import { lazyResolver } from '@/lib/forms/lazy-resolver';
import type { AgentCreate, AgentCreateInput } from '@/lib/schemas/agent';
import { AGENT_FIELDS, NEW_AGENT_DEFAULTS } from '@/lib/schemas/agent-fields';
import { TOOL_GROUP_NAMES, TOOL_GROUPS } from '@/lib/tool-groups';
import type { ApiAgent } from '@/lib/types/agent';
import { Button } from '@/components/ui/button';
import { CharCounter as KitCharCounter } from '@/components/ui/char-counter';
import { Field } from '@/components/ui/field';
import { Input, Textarea } from '@/components/ui/input';
import { Alert } from '@/components/ui/misc';
import { createAgentAction, updateAgentAction } from '@/app/(app)/agents/actions';
import { ApprovalToolsField } from './approval-tools-field';
import { CheckboxFieldset, CheckboxOption, RadioOption } from './form-options';
import { McpToolsField } from './mcp-tools-field';
import { SkillsField } from './skills-field';
import { ModelField } from './model-field';
import { agentKeys, agentListQuery } from './queries';
import { splitFieldErrors } from './server-errors';
import type { ToolAvailability } from './tool-availability';

const L = LIMITS.agent;
const RUN = LIMITS.run;
const COMPACTION = LIMITS.compaction;
const DELEGATION = LIMITS.delegation;
const fmt = (n: number) => n.toLocaleString('en-US');
/** An empty number field means "the default" (null). */
const nullableNumber = (v: unknown) => (v === '' || v == null ? null : Number(v));

/**
 * A whole number within a run limit's range; `placeholder` shows the default an empty (nullable) field stands for.
 * The rest (id, aria-invalid, aria-describedby) is what Field gives its child, passed on to the input.
 */
function WholeNumberInput({
  field,
  range,
  placeholder,
  wide,
  ...labelling
}: { field: UseFormRegisterReturn; range: { min: number; max: number }; placeholder?: number; wide?: boolean } & Pick<
  InputHTMLAttributes<HTMLInputElement>,
  'id' | 'aria-invalid' | 'aria-describedby'
>) {
  return (
    <Input
      {...labelling}
      {...field}
      type="number"
      inputMode="numeric"
      min={range.min}
      max={range.max}
      step={1}
      placeholder={placeholder === undefined ? undefined : String(placeholder)}
      className={wide ? 'max-w-40' : 'max-w-32'}
    />
  );
}

/** `tools`: what this server can run (tool-availability.ts), read by the page on the server. */
type Props = ({ mode: 'create' } | { mode: 'edit'; agent: ApiAgent }) & { tools: ToolAvailability };

type FormValues = AgentCreateInput;
/** The agent schema's check (form-resolver.ts), loaded when the form first gets focus (ADR 053). */
const resolver = lazyResolver<FormValues, unknown, AgentCreate>(() => import('./form-resolver').then((m) => m.agentResolver));

function initialValues(props: Props): FormValues {
  if (props.mode === 'create') return { ...NEW_AGENT_DEFAULTS };
  const { name, description, instructions, model, toolGroups, approvalTools, maxTurns, timeLimitMinutes, compactAtTokens } = props.agent;
  const { tokenBudget, allowedSubagents, maxDepth, maxChildren, maxConcurrentChildren, mcpTools, skills } = props.agent;
  return {
    name,
    description,
    instructions,
    model,
    toolGroups: [...toolGroups],
    approvalTools: [...approvalTools],
    mcpTools: mcpTools.map((s) => ({ serverId: s.serverId, tools: s.tools === 'all' ? 'all' : [...s.tools] })),
    skills: [...(skills ?? [])],
    maxTurns,
    timeLimitMinutes,
    compactAtTokens,
    tokenBudget,
    allowedSubagents: Array.isArray(allowedSubagents) ? [...allowedSubagents] : allowedSubagents,
    maxDepth,
    maxChildren,
    maxConcurrentChildren,
  };
}

/**
 * Create or edit a Custom Agent. The browser validates with the same zod schema as the server; the server's
 * field errors land next to the matching field, and what the person typed stays in place on any error.
 */
export function AgentForm(props: Props) {
  const router = useRouter();
  const queryClient = useQueryClient();
  const [formError, setFormError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);

  const {
    register,
    control,
    handleSubmit,
    setError,
    formState: { errors, isSubmitting },
  } = useForm<FormValues, unknown, AgentCreate>({
    resolver,
    defaultValues: initialValues(props),
    // Validate on submit, then live on every change. (Blur validation before the first submit can race the submit
    // and drop another field's error from the result.)
    mode: 'onSubmit',
    reValidateMode: 'onChange',
  });

  // The owner's other agents, for "Only these agents" (an agent deleted since is dropped on save).
  const others = useQuery(agentListQuery(''));
  const selfId = props.mode === 'edit' ? props.agent.id : null;
  const candidates = (others.data?.agents ?? []).filter((a) => a.id !== selfId);

  const onSubmit = handleSubmit(async (values) => {
    setFormError(null);
    if (Array.isArray(values.allowedSubagents) && others.data) {
      const known = new Set(candidates.map((a) => a.id));
      values = { ...values, allowedSubagents: values.allowedSubagents.filter((id) => known.has(id)) };
    }
    try {
      const agent = await actionData(() => (props.mode === 'edit' ? updateAgentAction(props.agent.id, values) : createAgentAction(values)));
      setSaved(true);
      queryClient.setQueryData(agentKeys.detail(agent.id), agent);
      await queryClient.invalidateQueries({ queryKey: agentKeys.lists });
      router.push('/agents');
    } catch (err) {
      if (!(err instanceof ApiError)) {
        setFormError(err instanceof Error ? err.message : 'Something went wrong');
        return;
      }
      const { byField, other } = splitFieldErrors(err.fields);
      const fieldErrors = AGENT_FIELDS.filter((f) => byField[f]);
      fieldErrors.forEach((f, i) => setError(f, { type: 'server', message: byField[f] }, { shouldFocus: i === 0 }));
      if (other.length) setFormError(other.join(' '));
      else if (fieldErrors.length === 0) setFormError(err.message);
    }
  });

  const busy = isSubmitting || saved;

  return (
    <form onSubmit={onSubmit} onFocus={resolver.preload} noValidate className="w-full max-w-3xl space-y-6">
      {formError ? <Alert>{formError}</Alert> : null}

      <Field label="Name" error={errors.name?.message} hint={<CharCounter control={control} name="name" max={L.name.maxChars} />}>
        <Input {...register('name')} autoComplete="off" required aria-required />
      </Field>

      <Field
        label="Description"
        error={errors.description?.message}
        hint={<CharCounter control={control} name="description" max={L.description.maxChars} prefix="Shown in lists and to team members." />}
      >
        <Textarea {...register('description')} rows={2} />
      </Field>

      <Field
        label="Instructions"
        error={errors.instructions?.message}
        hint={<CharCounter control={control} name="instructions" max={L.instructions.maxChars} prefix="How the agent should work: its role, style and rules." />}
      >
        <Textarea {...register('instructions')} rows={8} className="font-mono text-[13px] leading-relaxed" />
      </Field>

      <ModelField control={control} />

      <Controller
        control={control}
        name="toolGroups"
        render={({ field, fieldState }) => {
          const value = field.value ?? [];
          return (
            <CheckboxFieldset
              legend="Tool groups"
              hint="Leave all unchecked to allow every group, except those only used when chosen (Web reaches the internet). An agent that will be a team member needs the Team group."
              error={fieldState.error?.message}
            >
              <div className="grid gap-2 sm:grid-cols-3">
                {TOOL_GROUP_NAMES.map((group, i) => (
                  <CheckboxOption
                    key={group}
                    ref={i === 0 ? field.ref : undefined}
                    label={TOOL_GROUPS[group].label}
                    description={TOOL_GROUPS[group].description}
                    checked={value.includes(group)}
                    onBlur={field.onBlur}
                    onChange={(on) => field.onChange(TOOL_GROUP_NAMES.filter((g) => (g === group ? on : value.includes(g))))}
                  />
                ))}
              </div>
            </CheckboxFieldset>
          );
        }}
      />

      <ApprovalToolsField control={control} availability={props.tools} />

      <McpToolsField control={control} />

      <SkillsField control={control} />

      <Field
        label="Max turns"
        error={errors.maxTurns?.message}
        hint={`${L.maxTurns.min}–${L.maxTurns.max}. The most model turns one run may take before it stops (default ${L.maxTurns.default}).`}
      >
        <WholeNumberInput field={register('maxTurns', { valueAsNumber: true })} range={L.maxTurns} />
      </Field>

      <Field
        label="Time limit (minutes)"
        error={errors.timeLimitMinutes?.message}
        hint={`${RUN.timeLimitMinutes.min}–${RUN.timeLimitMinutes.max}. How long one run may take before it is stopped. Leave empty for the default (${RUN.defaultTimeLimitMinutes} minutes unless your administrator changed it).`}
      >
        <WholeNumberInput field={register('timeLimitMinutes', { setValueAs: nullableNumber })} range={RUN.timeLimitMinutes} placeholder={RUN.defaultTimeLimitMinutes} />
      </Field>

      <Field
        label="Compact after (tokens)"
        error={errors.compactAtTokens?.message}
        hint={`${COMPACTION.atTokens.min.toLocaleString('en-US')}–${COMPACTION.atTokens.max.toLocaleString('en-US')}. Once what the model receives passes this size, older messages are summarized for the model (the conversation keeps them all). Leave empty for the default (${COMPACTION.defaultAtTokens.toLocaleString('en-US')} unless your administrator changed it).`}
      >
        <WholeNumberInput field={register('compactAtTokens', { setValueAs: nullableNumber })} range={COMPACTION.atTokens} placeholder={COMPACTION.defaultAtTokens} wide />
      </Field>

      <Field
        label="Token budget per run"
        error={errors.tokenBudget?.message}
        hint={`${fmt(RUN.tokenBudget.min)}–${fmt(RUN.tokenBudget.max)} tokens (input + output). At ${Math.round(LIMITS.guards.tokenWarnAt * 100)} % the agent is warned; at 100 % it must answer with what it has. Leave empty for the default (${fmt(RUN.defaultTokenBudget)} unless your administrator changed it).`}
      >
        <WholeNumberInput field={register('tokenBudget', { setValueAs: nullableNumber })} range={RUN.tokenBudget} placeholder={RUN.defaultTokenBudget} wide />
      </Field>

      <Controller
        control={control}
        name="allowedSubagents"
        render={({ field, fieldState }) => {
          const value = field.value ?? 'all';
          const mode = Array.isArray(value) ? 'list' : value;
          const listed = Array.isArray(value) ? value : [];
          const error = fieldState.error?.message ?? (Array.isArray(fieldState.error) ? fieldState.error.find(Boolean)?.message : undefined);
          return (
            <CheckboxFieldset
              legend="Agents it may delegate to"
              hint="With the Delegate tool group, the agent can hand parts of a task to helpers. It can always use a helper like itself."
              error={error}
            >
              <div className="space-y-1.5">
                {(
                  [
                    ['all', 'All your agents'],
                    ['none', 'None (only a helper like itself)'],
                    ['list', 'Only the agents checked below'],
                  ] as const
                ).map(([option, label], i) => (
                  <RadioOption
                    key={option}
                    ref={i === 0 ? field.ref : undefined}
                    name={field.name}
                    label={label}
                    checked={mode === option}
                    onBlur={field.onBlur}
                    onSelect={() => field.onChange(option === 'list' ? listed : option)}
                  />
                ))}
              </div>
              {mode === 'list' ? (
                candidates.length ? (
                  <div className="grid gap-2 pl-6 sm:grid-cols-2">
                    {candidates.map((a) => (
                      <CheckboxOption
                        key={a.id}
                        label={a.name}
                        checked={listed.includes(a.id)}
                        onBlur={field.onBlur}
                        onChange={(on) => field.onChange(on ? [...listed, a.id] : listed.filter((id) => id !== a.id))}
                      />
                    ))}
                  </div>
                ) : (
                  <p className="pl-6 text-sm text-zinc-600 dark:text-zinc-400">{others.isPending ? 'Loading your agents…' : 'You have no other agents yet.'}</p>
                )
              ) : null}
            </CheckboxFieldset>
          );
        }}
      />

      <div className="grid gap-4 sm:grid-cols-3">
        <Field label="Delegation depth" error={errors.maxDepth?.message} hint={`${DELEGATION.depth.min}–${DELEGATION.depth.max}. How many levels of helpers below a run (default ${DELEGATION.depth.default}).`}>
          <WholeNumberInput field={register('maxDepth', { valueAsNumber: true })} range={DELEGATION.depth} />
        </Field>
        <Field
          label="Helpers per run"
          error={errors.maxChildren?.message}
          hint={`${DELEGATION.childrenPerRun.min}–${DELEGATION.childrenPerRun.max}. How many helpers one run may start in all (default ${DELEGATION.childrenPerRun.default}).`}
        >
          <WholeNumberInput field={register('maxChildren', { valueAsNumber: true })} range={DELEGATION.childrenPerRun} />
        </Field>
        <Field
          label="Helpers at once"
          error={errors.maxConcurrentChildren?.message}
          hint={`${DELEGATION.concurrent.min}–${DELEGATION.concurrent.max}. How many of them may work at the same time; the server allows at most ${DELEGATION.concurrent.server} (default ${DELEGATION.concurrent.default}).`}
        >
          <WholeNumberInput field={register('maxConcurrentChildren', { valueAsNumber: true })} range={DELEGATION.concurrent} />
        </Field>
      </div>

      <div className="flex flex-wrap items-center gap-2 border-t border-zinc-200 pt-4 dark:border-zinc-800">
        <Button type="submit" pending={busy}>
          {busy ? 'Saving…' : props.mode === 'edit' ? 'Save changes' : 'Create agent'}
        </Button>
        <ButtonLink href="/agents" variant="secondary">
          Cancel
        </ButtonLink>
      </div>
    </form>
  );
}

/** The kit's counter for a watched form field ("12 / 64 characters", red past the limit), after the field's hint. */
function CharCounter({
  control,
  name,
  max,
  prefix,
}: {
  control: Control<FormValues, unknown, AgentCreate>;
  name: 'name' | 'description' | 'instructions';
  max: number;
  prefix?: string;
}) {
  const value = useWatch({ control, name }) ?? '';
  return (
    <span className="flex flex-wrap justify-between gap-x-3">
      {prefix ? <span>{prefix}</span> : null}
      <KitCharCounter text={value} bound={{ maxChars: max }} className="ml-auto" />
    </span>
  );
}
