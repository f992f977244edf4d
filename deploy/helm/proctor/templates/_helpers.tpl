{{/* Names, labels and the environment every Proctor process shares. */}}

{{- define "proctor.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "proctor.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "proctor.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "proctor.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* Selector labels of one component (api, worker, migrate): pass (dict "root" $ "component" "api"). */}}
{{- define "proctor.selector" -}}
app.kubernetes.io/name: {{ include "proctor.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "proctor.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{- define "proctor.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "proctor.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* The settings as env entries (empty ones left out), then the Secret's keys. */}}
{{- define "proctor.env" -}}
{{- range $name, $value := merge (dict) .Values.config .Values.extraEnv }}
{{- if ne (toString $value) "" }}
- name: {{ $name }}
  value: {{ toString $value | quote }}
{{- end }}
{{- end }}
{{- end -}}

{{- define "proctor.envFrom" -}}
- secretRef:
    name: {{ required "existingSecret: the Secret holding DATABASE_URL and PROCTOR_MASTER_KEY" .Values.existingSecret }}
{{- end -}}
